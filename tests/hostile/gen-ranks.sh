#!/bin/sh
# gen-ranks.sh DIR RANKS [WORLD]: RANKS small Kineto traces DIR/rank-R.json of one job (distributedInfo rank R
# of WORLD, default RANKS): two ProfilerStep# spans of 1 ms, each with a 600 us GEMM and a 200 us NCCL
# all-reduce on device 0. For `nextstep trace DIR` over many ranks: generated at test time.
dir=${1:?dir} ranks=${2:?ranks} world=${3:-$2}
mkdir -p "$dir"
awk -v dir="$dir" -v ranks="$ranks" -v world="$world" 'BEGIN {
	for (r = 0; r < ranks; r++) {
		f = sprintf("%s/rank-%d.json", dir, r)
		printf "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":%d},\"traceEvents\":[\n", r, world > f
		for (s = 0; s < 2; s++) {
			printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":9,\"tid\":9,\"ts\":%d,\"dur\":1000},\n", s + 1, s * 1000 > f
			printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":600,\"args\":{\"device\":0}},\n", s * 1000 + 50, s > f
			printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":0,\"tid\":8,\"ts\":%d,\"dur\":200,\"args\":{\"device\":0}},\n", s * 1000 + 700 > f
		}
		printf "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"tid\":0,\"args\":{\"name\":\"python\"}}\n]}\n" > f
		close(f)
	}
}'
