# Issue 25: Bayesian Dawid–Skene (the confusion annotators' variational update
# on the answers alone, prior Dir(1 + diagonal·e_c), a Dirichlet class prior)
# and a point-estimate variant, from majority vote, from the point fit and from
# the true labels, with the variational bound at each end; a cross-check of
# docs/results-classification.md ("Communities beside the text's say"), never
# a runtime dependency. Draws written by TestFamilyDump:
#   MASLDA_FAMILY_DUMP=/tmp/fam MASLDA_FAMILY_DRAWS=35 go test ./models -run '^TestFamilyDump$'
#   /usr/bin/python3 docs/scripts/vbds_check.py draw35 2 /tmp/fam
import csv,numpy as np,sys
from scipy.special import digamma, gammaln
d=sys.argv[1]
DIR=sys.argv[3] if len(sys.argv)>3 else '/tmp/fam'
A=list(csv.DictReader(open(f'{DIR}/{d}/answers.csv')))
T={r['task']:r['label'] for r in csv.DictReader(open(f'{DIR}/{d}/truth.csv'))}
tasks=sorted({a['task'] for a in A},key=int); ws=sorted({a['worker'] for a in A})
labs=sorted({a['label'] for a in A}|set(T.values()),key=lambda s:int(s[1:]))
ti={t:i for i,t in enumerate(tasks)}; wi={w:i for i,w in enumerate(ws)}; li={l:i for i,l in enumerate(labs)}
D,R,C=len(tasks),len(ws),len(labs)
td=np.array([ti[a['task']] for a in A]); tw=np.array([wi[a['worker']] for a in A]); tl=np.array([li[a['label']] for a in A])
truth=np.array([li[T[t]] for t in tasks])
DIAG=float(sys.argv[2]) if len(sys.argv)>2 else 2.0
prior=np.ones((C,C))+DIAG*np.eye(C)
def mstep(q,point):
    xi=np.tile(prior,(R,1,1))
    np.add.at(xi,(tw,slice(None),tl),q[td])  # xi[r,c,l]+=q[d,c]
    al=1+q.sum(0)
    if point:
        el=np.log(xi/xi.sum(2,keepdims=True)); ep=np.log(al/al.sum())
    else:
        el=digamma(xi)-digamma(xi.sum(2,keepdims=True)); ep=digamma(al)-digamma(al.sum())
    return xi,al,el,ep
def estep(el,ep):
    lp=np.tile(ep,(D,1)); np.add.at(lp,td,el[tw,:,tl]); lp-=lp.max(1,keepdims=True); q=np.exp(lp); q/=q.sum(1,keepdims=True); return q,lp
def lbeta(a,axis=-1): return gammaln(a).sum(axis)-gammaln(a.sum(axis))
def elbo(q):
    xi,al,el,ep=mstep(q,False)
    # E log p(answers|c,pi) + E log p(c|p) + E log p(pi) + E log p(p) - E log q
    L=(q[td]*el[tw,:,tl]).sum()+(q*ep).sum()
    L+=((prior-1)*el).sum()-R*lbeta(prior).sum() + ((0)*ep).sum()-lbeta(np.ones(C))
    L-=((xi-1)*el).sum()-lbeta(xi).sum()
    L-=((al-1)*ep).sum()-lbeta(al)
    L-=(q*np.log(q+1e-300)).sum()
    return L
def run(q,point,it=500):
    for _ in range(it):
        xi,al,el,ep=mstep(q,point); q,_=estep(el,ep)
    return q
mv=np.zeros((D,C)); np.add.at(mv,(td,tl),1); mv=(mv==mv.max(1,keepdims=True)).astype(float); mv/=mv.sum(1,keepdims=True)
acc=lambda q:(q.argmax(1)==truth).mean()
qds=run(mv.copy(),True); print('DS point from MV acc',acc(qds),'VB elbo at its q',elbo(qds))
qb=run(mv.copy(),False); print('BDS from MV acc',acc(qb),'elbo',elbo(qb))
qbd=run(qds.copy(),False); print('BDS from DS acc',acc(qbd),'elbo',elbo(qbd))
qt=np.eye(C)[truth]; qbt=run(qt.copy(),False); print('BDS from truth acc',acc(qbt),'elbo',elbo(qbt), 'elbo at truth one-hot', elbo(np.clip(qt,1e-9,1)))
