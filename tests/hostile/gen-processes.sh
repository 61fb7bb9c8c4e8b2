#!/bin/sh
# gen-processes.sh PROCS: a Kineto trace in which PROCS processes each launch one 5 us kernel (a runtime
# cudaLaunchKernel linked by correlation id), inside one ProfilerStep# of the first process. For the cost of
# many launching processes: generated at test time.
procs=${1:?processes}
awk -v procs="$procs" 'BEGIN {
	printf "{\"traceEvents\": [\n"
	printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":%d,\"tid\":1,\"ts\":0,\"dur\":%d},\n", procs + 100, procs * 10 + 10
	for (p = 0; p < procs; p++) {
		printf "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},\n", procs - p + 100, p * 10, p + 1
		printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,\"args\":{\"device\":0,\"correlation\":%d}},\n", p * 10 + 3, p + 1
	}
	printf "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"python\"}}\n]}\n", procs + 100
}'
