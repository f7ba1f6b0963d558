# Issue 25, item 5: is the collapse of the bias-precision truth on fear, joy and
# surprise (docs/results-regression.md) an EM artefact or the model's maximum?
# Answers-only EM (x_d ~ N(mu, s2), y_dr ~ N(x_d + b_r, 1/p_r), the mean bias
# anchor, nu0 = 1) from the usual start, and from the converged shared-precision
# fit; the marginal log-likelihood of the answers (x_d integrated out) at each
# fixed point. Needs /tmp/snow (docs/scripts/snow2008.sh). A cross-check, never a
# runtime dependency:
#   /usr/bin/python3 docs/scripts/affect_marginal_check.py
import numpy as np
exec(open(__file__.replace('affect_marginal_check.py', 'affect_scale_check.py')).read().split('for E in')[0])
def marg(d,w,y,D,mu,s2,b,p):
    # per item: y ~ N(mu + b, s2·11' + diag(1/p))
    ll=0
    for t in range(D):
        k=d==t; r=w[k]; e=y[k]-mu-b[r]; S=s2*np.ones((k.sum(),k.sum()))+np.diag(1/p[r])
        s,ld=np.linalg.slogdet(S); ll+=-0.5*(ld+e@np.linalg.solve(S,e)+k.sum()*np.log(2*np.pi))
    return ll
def em(d,w,y,D,R,b,p,mu,s2,iters=2000,nu0=1.0,shared=False):
    n=np.bincount(w,minlength=R).astype(float); s0=y.var()
    for it in range(iters):
        prec=1/s2+np.bincount(d,weights=p[w],minlength=D)
        v=1/prec; m=v*(mu/s2+np.bincount(d,weights=p[w]*(y-b[w]),minlength=D))
        mu=m.mean(); s2=((m-mu)**2+v).mean()
        b=np.bincount(w,weights=y-m[d],minlength=R)/n; b-=(n*b).sum()/n.sum()
        res=np.bincount(w,weights=(y-b[w]-m[d])**2+v[d],minlength=R)
        if shared: p=np.full(R,(n.sum()+nu0)/(res.sum()+nu0*s0))
        else: p=(n+nu0)/(res+nu0*s0)
    prec=1/s2+np.bincount(d,weights=p[w],minlength=D); v=1/prec; m=v*(mu/s2+np.bincount(d,weights=p[w]*(y-b[w]),minlength=D))
    return m,b,p,mu,s2
for E in "anger disgust fear joy sadness surprise".split():
    d,w,y,g,D,R=load(E)
    m,b,p,mu,s2=em(d,w,y,D,R,np.zeros(R),np.ones(R)/y.var(),y.mean(),y.var())
    m2,b2,p2,mu2,s22=em(d,w,y,D,R,np.zeros(R),np.ones(R)/y.var(),y.mean(),y.var(),shared=True)
    m3,b3,p3,mu3,s23=em(d,w,y,D,R,b2,p2,mu2,s22)
    print(f"{E}: per-annotator precision R2 {r2(g,m):.3f} s2 {s2:.0f} loglik {marg(d,w,y,D,mu,s2,b,p):.1f} | "
          f"shared precision R2 {r2(g,m2):.3f} s2 {s22:.0f} loglik {marg(d,w,y,D,mu2,s22,b2,p2):.1f} | "
          f"per-annotator from the shared fit R2 {r2(g,m3):.3f} s2 {s23:.0f} loglik {marg(d,w,y,D,mu3,s23,b3,p3):.1f}")
