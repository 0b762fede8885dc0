#!/bin/bash
# A/B: the loop that polls after every post (old) against the one that fills the queue first (new), and perftest.
# "old" is the build of main; "new" was the same tree with loop_bw_post filling every send queue before polling (not adopted).
cd "$(dirname "$0")/../../.." && mkdir -p .cache   # the source top; scratch in .cache/
S=${S:-2}; B=${B:-write_bw}
A="-d rxe0 -x 1 -s $S -n ${N:-5000} -t 128 -Q ${Q:-100} -I 0"
[ $B = send_bw ] && A="$A -r 512"
one() {
	local V=$1 sp out bin
	case $V in old) bin=${OLD_DIR:-.cache/ab}/rb_$B.old ;; new) bin=${NEW_DIR:-.}/rb_$B ;; esac
	if [ $V = ib ]; then
		ib_$B $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$(ib_$B $A 127.0.0.1 2>&1 | awk '/^ *[0-9]+ +[0-9]+ /{print $5*1000}')
	else
		$bin $A >/dev/null 2>&1 & sp=$!; sleep 0.3
		out=$($bin $A --csv 127.0.0.1 2>/dev/null | grep -v '^#' | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR==2{print $h["msg_rate_mpps"]*1000}')
	fi
	wait $sp
	echo "R $B $S $V $out"
}
for r in $(seq ${REPS:-24}); do
	case $((r % 3)) in 0) vs="old new ib";; 1) vs="new ib old";; 2) vs="ib old new";; esac
	for v in $vs; do one $v; done
done
