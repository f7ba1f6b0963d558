# Issue 25: the decoy prototype of docs/scripts/decoy_check.py with a second
# hard channel: a hard answer (probability q_d, grid GRID) is uniform with a
# learned probability u, else the item's decoy class; after EM, the
# relabelling by the answers' agreement (z >= 1) refits from the permuted
# posterior. Columns: majority vote, DS (grid {0}), uniform hard answers only
# (unif), the decoy and uniform channels (dd, learned u), the same with the
# decoy matrix held uniform (ddM0). Answers only; needs python3-numpy.
#   MASLDA_FAMILY_KIND=crowded MASLDA_FAMILY_DUMP=/tmp/dump1 go test ./models -run "^TestFamilyDump$"
#   /usr/bin/python3 docs/scripts/decoy_uniform_check.py /tmp/dump1/* > dd1.tsv
import sys, os, itertools, numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoy_check import load  # the dumps' answers.csv and truth.csv

EPS=1e-300
def mv_counts(it,y,C,D):
    cnt=np.zeros((D,C)); np.add.at(cnt,(it,y),1); return cnt
def fit(it,wr,y,C,R,D,grid,iters=50,diag=2.0,off=1.0,learnM=True,learnU=True,u0=0.5,post0=None,decoy=True):
    N=len(y); G=len(grid); q=np.array(grid)
    cnt=mv_counts(it,y,C,D)
    post=post0 if post0 is not None else (cnt+1e-9)/(cnt+1e-9).sum(1,keepdims=True)
    # init pi from post
    pi=np.full((R,C,C),off); pi[:,np.arange(C),np.arange(C)]=diag
    np.add.at(pi,(wr,slice(None),y),post[it]); pi/=pi.sum(2,keepdims=True)
    pc=post.sum(0)+1; pc/=pc.sum()
    M=(np.ones((C,C))-np.eye(C)); M/=M.sum(1,keepdims=True)
    w=np.ones(G)/G; u=u0 if decoy and C>2 else 1.0
    ind=np.zeros((N,C)); ind[np.arange(N),y]=1
    for _ in range(iters):
        P=pi[wr,:,y]                                   # N,C   pi_r[c,y]
        hard=u/C+(1-u)*ind                             # N,A   hard-channel prob of y given decoy a
        mix=(1-q)[None,None,None,:]*P[:,:,None,None]+q[None,None,None,:]*hard[:,None,:,None]   # N,C,A,G
        L=np.zeros((D,C,C,G))
        np.add.at(L,it,np.log(mix+EPS))
        L+=np.log(pc+EPS)[None,:,None,None]+np.log(M+EPS)[None,:,:,None]+np.log(w+EPS)[None,None,None,:]
        if C>1:
            # a==c impossible
            L[:,np.arange(C),np.arange(C),:]=-np.inf
        m=L.max(axis=(1,2,3),keepdims=True); J=np.exp(L-m); J/=J.sum(axis=(1,2,3),keepdims=True)
        post=J.sum(axis=(2,3))
        # M-step
        pc=post.sum(0)+1; pc/=pc.sum()
        Jn=J[it]                                       # N,C,A,G
        ann=(1-q)[None,None,None,:]*P[:,:,None,None]/(mix+EPS)
        wc=(Jn*ann).sum(axis=(2,3))                    # N,C expected annotator-channel mass
        pi=np.full((R,C,C),off); pi[:,np.arange(C),np.arange(C)]=diag
        np.add.at(pi,(wr,slice(None),y),wc); pi/=pi.sum(2,keepdims=True)
        if G>1:
            w=J.sum(axis=(0,1,2))+1; w/=w.sum()
            if learnM and C>2:
                Mc=J.sum(axis=(0,3))*(q[None,None,:]>0).any()+ (np.ones((C,C))-np.eye(C))
                # weight by hard-item mass only (g>0)
                Mc=J[:,:,:,q>0].sum(axis=(0,3))+(np.ones((C,C))-np.eye(C))
                np.fill_diagonal(Mc,0); M=Mc/Mc.sum(1,keepdims=True)
            if learnU and decoy and C>2:
                hardm=(Jn*(q[None,None,None,:]*hard[:,None,:,None]/(mix+EPS))).sum(axis=1)  # N,A,G hard-channel mass
                un=(u/C)/hard                           # N,A share uniform within hard channel
                U=(hardm*un[:,:,None]).sum()+1; T=hardm.sum()+2
                u=U/T
    return post,u,w
def agree_perm(post,it,y,C):
    # best permutation by agreement (brute force, C<=7)
    A=np.zeros((C,C)); np.add.at(A,(slice(None),y),post[it].T) if False else None
    A=np.zeros((C,C))
    for c in range(C):
        np.add.at(A[c],y,post[it,c])
    best=None;bv=-1
    for p in itertools.permutations(range(C)):
        v=sum(A[c,p[c]] for c in range(C))
        if v>bv: bv,best=v,p
    # z test
    bp=np.array(best); Pn=post[it]; x=(Pn*((bp[None,:]==y[:,None]).astype(float)-(np.arange(C)[None,:]==y[:,None]).astype(float))).sum(1)
    z=x.sum()/max(1e-12,2*np.sqrt((x*x).sum()))
    return best, z
def run(d,grid,**kw):
    it,wr,y,truth,C,R,D=load(d)
    post,u,w=fit(it,wr,y,C,R,D,grid,**kw)
    if C<=7:
        p,z=agree_perm(post,it,y,C)
        if list(p)!=list(range(C)) and z>=1:
            pp=np.zeros_like(post); pp[:,list(p)]=post
            post,u,w=fit(it,wr,y,C,R,D,grid,post0=pp,**kw)
    return (post.argmax(1)==truth).mean(),u
if __name__=='__main__':
    grid=[float(x) for x in os.environ.get('GRID','0,0.1,0.2,0.3,0.4,0.5').split(',')]
    for d in sys.argv[1:]:
        it,wr,y,truth,C,R,D=load(d)
        cnt=mv_counts(it,y,C,D); rng=np.random.default_rng(0)
        mv=((cnt+rng.random(cnt.shape)*1e-6).argmax(1)==truth).mean()
        dsa,_=run(d,[0.0])
        gl,_=run(d,grid,decoy=False)
        dd,u=run(d,grid)
        ddm,um=run(d,grid,learnM=False)
        spec=open(os.path.join(d,'spec.txt')).readline()
        dec='decoy' if 'decoy' in spec else '-'
        print(f"{os.path.basename(d)}\tC{C}\tR{R}\t{dec}\tMV {mv:.4f}\tDS {dsa:.4f}\tunif {gl:.4f}\tdd {dd:.4f} (u {u:.2f})\tddM0 {ddm:.4f} (u {um:.2f})",flush=True)
