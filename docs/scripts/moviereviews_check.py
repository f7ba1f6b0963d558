# Cross-check for docs/results-regression.md (not a dependency of maslda):
# ridge on tf-idf counts and scikit-learn LDA + linear regression on the movie reviews.
# usage: /usr/bin/python3 docs/scripts/moviereviews_check.py DIR  (DIR: data_train_amt.txt, data_test.txt, labels_*.txt, answers.txt)
import numpy as np, scipy.sparse as sp, sys
from sklearn.linear_model import Ridge, LinearRegression
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import r2_score
root=sys.argv[1]
def read(p, V=None):
    rows=[];cols=[];vals=[]
    lines=open(p).read().splitlines()
    for i,l in enumerate(lines):
        t=l.split()
        for x in t[1:]:
            a,b=x.split(':'); rows.append(i); cols.append(int(a)); vals.append(float(b))
    return rows,cols,vals,len(lines)
r1=read(root+'/data_train_amt.txt'); r2=read(root+'/data_test.txt')
V=max(max(r1[1]),max(r2[1]))+1
Xtr=sp.csr_matrix((r1[2],(r1[0],r1[1])),shape=(r1[3],V)); Xte=sp.csr_matrix((r2[2],(r2[0],r2[1])),shape=(r2[3],V))
ytr=np.loadtxt(root+'/labels_train_amt.txt'); yte=np.loadtxt(root+'/labels_test.txt')
A=np.loadtxt(root+'/answers.txt'); A[A==999999999]=np.nan; mean=np.nanmean(A,axis=1)
print('V',V,'train',Xtr.shape,'test',Xte.shape, 'ytr sd',ytr.std(),'yte sd',yte.std())
tf=TfidfTransformer().fit(Xtr)
for alpha in [1,3,10]:
    m=Ridge(alpha=alpha).fit(tf.transform(Xtr),mean); print('tfidf ridge(mean answer) alpha',alpha,'test R2 %.4f'%r2_score(yte,m.predict(tf.transform(Xte))))
m=Ridge(alpha=3).fit(tf.transform(Xtr),ytr); print('tfidf ridge(true labels) test R2 %.4f'%r2_score(yte,m.predict(tf.transform(Xte))))
for K in [20]:
    lda=LatentDirichletAllocation(n_components=K,random_state=0,max_iter=50,learning_method='batch',doc_topic_prior=0.1,topic_word_prior=0.1).fit(Xtr)
    Ttr=lda.transform(Xtr); Tte=lda.transform(Xte)
    m=LinearRegression().fit(Ttr,mean); print('sklearn LDA K',K,'+LinReg(mean) in-sample R2 %.4f test R2 %.4f'%(m.score(Ttr,mean), r2_score(yte,m.predict(Tte))))
