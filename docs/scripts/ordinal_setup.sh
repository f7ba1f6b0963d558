# Ordinal targets (docs/results.md, issue 13): corpora, simulated ordinal crowds, bucketed AMT answers, configs.
# usage: bash docs/scripts/ordinal_setup.sh   (in an empty directory; MASLDA = the binary, DATA = ../shared/data,
#        SEED = the training seed and the simulated crowds' seed, default 1; the Pang & Lee split keeps seed 1)
set -e
B=${MASLDA:-maslda}
S=${DATA:-../shared/data}
SEED=${SEED:-1}
W=$S/rodrigues_we8there_sim
M=$S/rodrigues_moviereviews_amt
mkdir -p we pl mv cfg
# --- configs: K 20, batch, 30 iterations, seed $SEED
for pair in "ord:ordinal:ordinal-shift" "sm:softmax:confusion" "ga:gaussian:bias-precision"; do
  IFS=: read n r a <<<"$pair"
  printf 'seed = %s\n\ntopics {\n  k     = 20\n  alpha = 1\n  tau   = 0.1\n}\n\nresponse "%s" {}\n\nannotators "%s" {}\n\ninference "batch" {\n  max_iters = 30\n}\n' "$SEED" "$r" "$a" > cfg/$n.hcl
done
# --- simulated ordinal crowd: accurate, a level high, extremes, two noisy
cat > cfg/crowd.hcl <<'H'
annotators "ordinal-shift" {
  shift     = [0, 1, 0, 0, -0.5]
  stretch   = [1, 1, 2.5, 1, 1]
  precision = [6, 4, 4, 1, 0.7]
}
H
# --- we8there: 1-5 stars (trailing blanks stripped)
sed 's/[[:space:]]*$//' $W/labels_train.txt > we/truth_train.txt
sed 's/[[:space:]]*$//' $W/labels_test.txt > we/truth_test.txt
printf '1\n2\n3\n4\n5\n' > we/levels.txt
$B simulate --annotators cfg/crowd.hcl --truth-column we/truth_train.txt --classes we/levels.txt --per-doc 2 --seed $SEED --out we/answers.csv
# --- Pang & Lee: 4-class and 3-class labels of the same split (stratified on both)
for a in $S/pang_lee_scaledata/scaledata/*/; do
  n=$(basename "$a"); paste "$a/id.$n" <(paste -d_ "$a/label.4class.$n" "$a/label.3class.$n") "$a/subj.$n"
done > pl/pang_lee.tsv
$B prepare --input pl/pang_lee.tsv --format lines --line-fields id,label,text --min-df 5 --max-df 0.5 --split 0.75 --seed 1 --out pl/data --progress never
for part in train test; do
  awk -F, 'NR==1{print;next}{split($2,l,"_"); print $1","l[1]}' pl/data/$part/labels.csv > pl/truth4_$part.csv
  awk -F, 'NR==1{print;next}{split($2,l,"_"); print $1","l[2]}' pl/data/$part/labels.csv > pl/truth3_$part.csv
done
printf '0\n1\n2\n3\n' > pl/levels4.txt
printf '0\n1\n2\n' > pl/levels3.txt
$B simulate --annotators cfg/crowd.hcl --truth pl/truth4_train.csv --classes pl/levels4.txt --per-doc 2 --seed $SEED --out pl/answers4.csv
$B simulate --annotators cfg/crowd.hcl --truth pl/truth3_train.csv --classes pl/levels3.txt --per-doc 2 --seed $SEED --out pl/answers3.csv
# --- movie reviews, real AMT answers (rating/10) bucketed as Pang & Lee's 4 classes:
#     <= .3 -> 0, .4-.5 -> 1, .6-.7 -> 2, >= .8 -> 3 (answers -0.1 and 1.1 to the ends)
bucket='function b(v){ return v<0.35?0:(v<0.55?1:(v<0.75?2:3)) }'
awk "$bucket"'{ for(i=1;i<=NF;i++) $i = ($i==999999999 ? "NA" : b($i)); print }' $M/answers.txt > mv/answers_wide.txt
awk "$bucket"'{ print b($1) }' $M/labels_train_amt.txt > mv/truth_train.txt
awk "$bucket"'{ print b($1) }' $M/labels_test.txt > mv/truth_test.txt
$B import --wide mv/answers_wide.txt --missing NA --out mv/answers.csv
printf '0\n1\n2\n3\n' > mv/levels.txt
