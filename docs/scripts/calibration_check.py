# Cross-check for docs/results.md, "The strong annotator is estimated optimistically: why"
# (not a dependency of maslda): is the MA-sLDAc classifier underconfident because of
# the softmax's product bound (MODEL.md §2) or because of its soft targets λ?
# Fits plain multinomial logistic regressions (no bound) on the training documents'
# topic proportions with the model's λ as soft targets, with argmax λ, and with the
# true labels, and compares their calibration on the test documents with the model's.
# usage:
#   maslda predict --model CELL/model --docs OUT/data/20ng/train/docs.ldac \
#       --ids OUT/data/20ng/train/ids.txt --out trainpred.csv
#   /usr/bin/python3 docs/scripts/calibration_check.py CELL OUT/data trainpred.csv
# CELL: an experiment cell of ma-sldac-batch (model/, test.csv); OUT/data: the
# experiment's data directory.
import sys, csv, struct, numpy as np
from sklearn.linear_model import LogisticRegression
C, D, TRAINPRED = sys.argv[1], sys.argv[2], sys.argv[3]
raw = open(C+"/model/response.params","rb").read()
c,k = struct.unpack("<QQ", raw[8:24]); eta = np.frombuffer(raw[24:], "<f8").reshape(c,k)
def load(p):
    r = list(csv.reader(open(p))); h = r[0]
    ti = [i for i,x in enumerate(h) if x.startswith("theta:")]; pi=[i for i,x in enumerate(h) if x.startswith("p:")]
    return [x[0] for x in r[1:]], np.array([[float(x[i]) for i in ti] for x in r[1:]]), np.array([[float(x[i]) for i in pi] for x in r[1:]]), [h[i][2:] for i in pi]
tr_ids, tr_th, _, cls = load(TRAINPRED)
te_ids, te_th, te_p, _ = load(C+"/test.csv")
post = {x[0]: [float(v) for v in x[2:]] for x in list(csv.reader(open(C+"/model/posterior.csv")))[1:]}
lam = np.array([post[i] for i in tr_ids])
def truth(p):
    return {x[0]: x[1] for x in list(csv.reader(open(p)))[1:]}
ytr = np.array([cls.index(truth(D+"/20ng/train/labels.csv")[i]) for i in tr_ids])
yte = np.array([cls.index(truth(D+"/20ng/test/labels.csv")[i]) for i in te_ids])
def report(name, P):
    print(f"{name:42s} acc {np.mean(P.argmax(1)==yte):.3f}  mean top prob {P.max(1).mean():.3f}  log loss {-np.mean(np.log(P[np.arange(len(yte)),yte])):.3f}")
report("model (softmax(eta phibar))", te_p)
Z = te_th @ eta.T; P = np.exp(Z - Z.max(1,keepdims=True)); P/=P.sum(1,keepdims=True)
report("softmax(eta theta)", P)
print("||eta|| model", np.linalg.norm(eta - eta.mean(0)))
def fit(X, y, w, Cr=1e4):
    m = LogisticRegression(C=Cr, max_iter=5000); m.fit(X, y, sample_weight=w); return m
n = len(tr_ids)
Xs = np.repeat(tr_th, c, axis=0); ys = np.tile(np.arange(c), n); ws = lam.reshape(-1)
m = fit(Xs, ys, ws); report("LR on the soft targets lambda", m.predict_proba(te_th)); print("||coef|| soft", np.linalg.norm(m.coef_))
m = fit(tr_th, lam.argmax(1), None); report("LR on argmax lambda", m.predict_proba(te_th))
m = fit(tr_th, ytr, None); report("LR on the true labels", m.predict_proba(te_th)); print("||coef|| true", np.linalg.norm(m.coef_))
print("train: truth acc of lambda", np.mean(lam.argmax(1)==ytr), "mean max lambda", lam.max(1).mean())
