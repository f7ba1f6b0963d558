# One run of docs/results.md "Ordinal targets": train, predict, eval (truth and held out, scored as levels).
# usage: run.sh SET MODEL   (SET: we pl4 pl3 mv; MODEL: ord sm ga)
set -e
B=${MASLDA:-maslda}
S=${DATA:-../shared/data}
set_=$1; m=$2
case $set_ in
  we) W=$S/rodrigues_we8there_sim
      docs="--docs $W/data_train.txt"; test="--docs $W/data_test.txt"
      ans=we/answers.csv; tr="--truth-column we/truth_train.txt"; tt="--truth-column we/truth_test.txt"; lv=we/levels.txt;;
  pl4|pl3) n=${set_#pl}
      docs="--docs pl/data/train/docs.ldac --ids pl/data/train/ids.txt --vocab pl/data/train/vocab.txt"
      test="--docs pl/data/test/docs.ldac --ids pl/data/test/ids.txt"
      ans=pl/answers$n.csv; tr="--truth pl/truth${n}_train.csv"; tt="--truth pl/truth${n}_test.csv"; lv=pl/levels$n.txt;;
  mv) M=$S/rodrigues_moviereviews_amt
      docs="--docs $M/data_train_amt.txt --vocab-size 26735"; test="--docs $M/data_test.txt"
      ans=mv/answers.csv; tr="--truth-column mv/truth_train.txt"; tt="--truth-column mv/truth_test.txt"; lv=mv/levels.txt;;
esac
cls=""; [ $m != ga ] && cls="--classes $lv"
out=runs/${set_}_$m
mkdir -p runs; rm -rf $out
/usr/bin/time -f "%e s %M KB %U user %S sys" -o $out.time nice $B train --config cfg/$m.hcl $docs --answers $ans $tr $cls --out $out --progress never --workers 1 --log-level warn
nice $B predict --model $out $test --out $out.test.csv --log-level warn
$B eval --kind ordinal --classes $lv --pred $out/posterior.csv $tr --json > $out.truth.json
$B eval --kind ordinal --classes $lv --pred $out.test.csv $tt --json > $out.heldout.json
echo "$set_ $m $(cat $out.time) truth $(cat $out.truth.json) heldout $(cat $out.heldout.json)"
