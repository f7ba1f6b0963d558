import sys, os, numpy as np
from collections import defaultdict

def load(d):
    A=[]; 
    with open(os.path.join(d,'answers.csv')) as f:
        next(f)
        for line in f:
            t,w,l=line.strip().split(','); A.append((int(t),w,l))
    T={}
    with open(os.path.join(d,'truth.csv')) as f:
        next(f)
        for line in f:
            t,l=line.strip().split(','); T[int(t)]=l
    classes=sorted(set([l for _,_,l in A])|set(T.values()), key=lambda s:int(s[1:]))
    ci={c:i for i,c in enumerate(classes)}
    workers=sorted(set(w for _,w,_ in A)); wi={w:i for i,w in enumerate(workers)}
    items=sorted(set(t for t,_,_ in A)); ii={t:i for i,t in enumerate(items)}
    it=np.array([ii[t] for t,_,_ in A]); wr=np.array([wi[w] for _,w,_ in A]); y=np.array([ci[l] for _,_,l in A])
    truth=np.array([ci[T[t]] for t in items])
    return it,wr,y,truth,len(classes),len(workers),len(items)

def mv(it,y,C,D,rng):
    cnt=np.zeros((D,C)); np.add.at(cnt,(it,y),1)
    cnt+=rng.random((D,C))*1e-6
    return cnt.argmax(1), cnt

def fit(it,wr,y,C,R,D,grid,iters=50,diag=2.0,off=1.0):
    G=len(grid); q=np.array(grid)
    rng=np.random.default_rng(0)
    _,cnt=mv(it,y,C,D,rng)
    post_c=cnt/cnt.sum(1,keepdims=True)
    # init pi from MV soft counts
    pi=np.full((R,C,C),off); pi[:,np.arange(C),np.arange(C)]=diag
    np.add.at(pi,(wr,slice(None),y),0)  # placeholder
    for n in range(len(y)):
        pi[wr[n],:,y[n]]+=post_c[it[n]]
    pi/=pi.sum(2,keepdims=True)
    pc=post_c.sum(0)+1; pc/=pc.sum()
    M=np.ones((C,C))-np.eye(C); M/=M.sum(1,keepdims=True) if C>1 else 1
    w=np.ones(G)/G
    eps=1e-300
    for itn in range(iters):
        # E: log L[d,c,a,g]
        L=np.zeros((D,C,C,G))
        L+=np.log(pc)[None,:,None,None]+np.log(M+eps)[None,:,:,None]+np.log(w)[None,None,None,:]
        # per answer contribution: log((1-q)pi[r,c,y] + q*1{y==a})
        P=pi[wr,:,y]  # N x C  (pi_r[c,y_n])
        ind=np.zeros((len(y),C)); ind[np.arange(len(y)),y]=1  # N x C over a
        contrib=np.log((1-q)[None,None,None,:]*P[:,:,None,None]+q[None,None,None,:]*ind[:,None,:,None]+eps)  # N,C,C,G
        np.add.at(L,it,contrib)
        # invalid a==c for g>0: M has zero diag -> log eps. For g with q=0, a sums out: handle by M rows summing to 1 (but a==c excluded).
        m=L.max(axis=(1,2,3),keepdims=True); Pst=np.exp(L-m); Pst/=Pst.sum(axis=(1,2,3),keepdims=True)
        # M-step
        pcd=Pst.sum(axis=(2,3))  # D x C
        pc=pcd.sum(0)+1; pc/=pc.sum()
        # channel responsibilities per answer
        num_ann=(1-q)[None,None,None,:]*P[:,:,None,None]
        den=num_ann+q[None,None,None,:]*ind[:,None,:,None]+eps
        t_ann=num_ann/den  # N,C,C,G
        wgt=(Pst[it]*t_ann).sum(axis=(2,3))  # N x C : expected annotator-channel mass for class c
        pi=np.full((R,C,C),off); pi[:,np.arange(C),np.arange(C)]=diag
        for n in range(len(y)):
            pi[wr[n],:,y[n]]+=wgt[n]
        pi/=pi.sum(2,keepdims=True)
        if G>1:
            if os.environ.get('LEARN_M','1')=='1':
                Mc=Pst[:,:,:,1:].sum(axis=(0,3))+ (np.ones((C,C))-np.eye(C))
                np.fill_diagonal(Mc,0); M=Mc/Mc.sum(1,keepdims=True)
            if os.environ.get('LEARN_W','1')=='1':
                w=Pst.sum(axis=(0,1,2))+1; w/=w.sum()
    return pcd.argmax(1), w

if __name__ == '__main__':
    grid=[float(x) for x in os.environ.get('GRID','0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8').split(',')]
    for d in sys.argv[1:]:
        it,wr,y,truth,C,R,D=load(d)
        rng=np.random.default_rng(1)
        mvp,_=mv(it,y,C,D,rng)
        ds,_=fit(it,wr,y,C,R,D,[0.0])
        dc,w=fit(it,wr,y,C,R,D,grid)
        spec=open(os.path.join(d,'spec.txt')).readline()
        dec='decoy' if 'decoy' in spec else '-'
        print(f"{os.path.basename(d)}\tC{C}\tR{R}\t{dec}\t{(mvp==truth).mean():.4f}\t{(ds==truth).mean():.4f}\t{(dc==truth).mean():.4f}", flush=True)
