#!/bin/sh
# gen-summaries.sh RANKS STEPS COLLS [GROUPS [SLOW [WORLD [FIRST]]]]: job summary lines (docs/job.md) of RANKS
# ranks (numbered from FIRST, default 0) on one clock, each with STEPS steps of 10 ms and COLLS collectives
# spread over the steps, in GROUPS process groups ("g0", "g1", ...; default 1) taken in turn, matched by
# "seq", fully exposed, ending at the same moment on every rank. A rank computes 5 ms and waits 3 ms in its
# step's collectives; the first SLOW ranks (default 0) compute 7.5 ms and wait 0.5 ms (stragglers: 2.5 ms
# more outside comm). WORLD (default RANKS) is each line's world_size. For the bounds on merging many ranks,
# steps, collectives and groups: generated at test time instead of committed.
ranks=${1:?ranks} steps=${2:?steps} colls=${3:?collectives} groups=${4:-1} slow=${5:-0} world=${6:-$1} first=${7:-0}
awk -v ranks="$ranks" -v steps="$steps" -v colls="$colls" -v groups="$groups" -v slow="$slow" \
	-v world="$world" -v first="$first" 'BEGIN {
	per = steps > 0 ? int((colls + steps - 1) / steps) : 0
	slot = per > 0 ? int(500000 / per) : 0
	for (r = 0; r < ranks; r++) {
		comp = r < slow ? 7500000 : 5000000
		comm = r < slow ? 500000 : 3000000
		printf "{\"nextstep_summary\":1,\"rank\":%d,\"world_size\":%d,\"file\":\"rank-%d\",\"t0\":\"0\",", r + first, world, r + first
		printf "\"devices\":[{\"device\":0,\"name\":\"GPU\",\"overall\":{\"step\":-1,\"start\":0,\"dur\":%.0f,", steps * 10000000
		printf "\"b\":[%.0f,%.0f,%.0f,%.0f,%.0f,0],\"c\":{\"comm.exposed\":%.0f},\"hidden\":0,\"kernels\":%.0f},\"steps\":[", \
			steps * comp, steps * 1000000, steps * comm, steps * 500000, steps * 500000, steps * comm, steps * 10
		for (s = 0; s < steps; s++)
			printf "%s{\"step\":%d,\"start\":%.0f,\"dur\":10000000,\"b\":[%d,1000000,%d,500000,500000,0],\"c\":{\"comm.exposed\":%d},\"hidden\":0,\"kernels\":10}", \
				s ? "," : "", s, s * 10000000, comp, comm, comm
		printf "],\"collectives\":["
		for (c = 0; c < colls; c++) {
			s = int(c / per)
			k = c % per
			end = s * 10000000 + 8500000 + (k + 1) * slot
			start = k == 0 ? s * 10000000 + comp + 1000000 : end - slot
			printf "%s{\"start\":%.0f,\"end\":%.0f,\"step\":%d,\"seq\":%d,\"in\":1024,\"out\":1024,\"name\":\"allreduce\",\"group\":\"g%d\",\"exposed\":[[%.0f,%.0f,%.0f]]}", \
				c ? "," : "", start, end, s, int(c / groups), c % groups, start, end, end - start
		}
		printf "]}]}\n"
	}
}'
