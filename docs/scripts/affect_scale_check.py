# Issue 25, item 5: answers-only EM on ../shared/data/snow2008_affect (prepared by
# docs/scripts/snow2008.sh into /tmp/snow) for bias-precision annotators and for a
# scale model y = a_r x + b_r + noise (prior ka (a_r - 1)^2); truth R² against the gold.
# A cross-check of results-regression.md, never a runtime dependency:
#   /usr/bin/python3 docs/scripts/affect_scale_check.py
import csv, numpy as np, sys
def load(E):
    rows=list(csv.DictReader(open(f'/tmp/snow/affect/{E}.answers.csv')))
    tasks=sorted({r['task'] for r in rows}); workers=sorted({r['worker'] for r in rows})
    ti={t:i for i,t in enumerate(tasks)}; wi={w:i for i,w in enumerate(workers)}
    d=np.array([ti[r['task']] for r in rows]); w=np.array([wi[r['worker']] for r in rows]); y=np.array([float(r['label']) for r in rows])
    gold={r['task']:float(r['label']) for r in csv.DictReader(open(f'/tmp/snow/affect/{E}.truth.csv'))}
    g=np.array([gold[t] for t in tasks])
    return d,w,y,g,len(tasks),len(workers)
def r2(g,x): return 1-((g-x)**2).sum()/((g-g.mean())**2).sum()
def fit(d,w,y,D,R,scale=True,ka=1.0,nu0=1.0,iters=2000):
    n=np.bincount(w,minlength=R).astype(float)
    s0=y.var()
    mu=y.mean(); s2=y.var(); a=np.ones(R); b=np.zeros(R); p=np.ones(R)/y.var()
    for it in range(iters):
        prec=1/s2+np.bincount(d,weights=a[w]**2*p[w],minlength=D)
        v=1/prec; m=v*(mu/s2+np.bincount(d,weights=a[w]*p[w]*(y-b[w]),minlength=D))
        mu=m.mean(); s2=((m-mu)**2+v).mean()
        Ex=m[d]; Ex2=m[d]**2+v[d]
        for r in range(R):
            k=w==r
            if scale:
                # minimise p*sum((y-b-a x)^2) + ka*(a-1)^2 in a,b (ka absolute)
                A=np.array([[p[r]*Ex2[k].sum()+ka, p[r]*Ex[k].sum()],[p[r]*Ex[k].sum(), p[r]*k.sum()]])
                rhs=np.array([p[r]*(y[k]*Ex[k]).sum()+ka, p[r]*y[k].sum()])
                a[r],b[r]=np.linalg.solve(A,rhs)
            else:
                b[r]=(y[k]-Ex[k]).mean()
        if not scale:
            b-=(n*b).sum()/n.sum()
        res=np.bincount(w,weights=(y-b[w])**2-2*(y-b[w])*a[w]*Ex+a[w]**2*Ex2,minlength=R)
        p=(n+nu0)/(res+nu0*s0)
    return m,a,b,p,s2
for E in "anger disgust fear joy sadness surprise".split():
    d,w,y,g,D,R=load(E)
    mean=np.bincount(d,weights=y,minlength=D)/np.bincount(d,minlength=D)
    out=[f"{E}: mean {r2(g,mean):.3f}"]
    m,a,b,p,s2=fit(d,w,y,D,R,scale=False); out.append(f"bias-prec {r2(g,m):.3f} (s2 {s2:.0f})")
    for ka in [0.01,0.1,1.0]:
        m,a,b,p,s2=fit(d,w,y,D,R,scale=True,ka=ka); out.append(f"scale ka={ka} {r2(g,m):.3f} (s2 {s2:.0f}, a {a.min():.2f}..{a.max():.2f})")
    print("; ".join(out))
