#!/bin/sh
# gen-steps.sh STEPS DEVICES: a Kineto trace with STEPS ProfilerStep# spans of 100 us, each with one GEMM kernel
# of 60 us per device (so every step is 60% compute, 40% idle on every device). For memory and time bounds on
# many steps and devices, generated at test time instead of committed.
steps=${1:?steps} devices=${2:-1}
awk -v steps="$steps" -v devices="$devices" 'BEGIN {
	printf "{\"traceEvents\": [\n"
	for (s = 0; s < steps; s++) {
		printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":9,\"tid\":9,\"ts\":%d,\"dur\":100},\n", s, s * 100
		for (d = 0; d < devices; d++)
			printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ampere_sgemm_128x64_nn\",\"pid\":%d,\"tid\":7,\"ts\":%d,\"dur\":60,\"args\":{\"device\":%d}},\n", d, s * 100 + 10, d
	}
	printf "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"tid\":0,\"args\":{\"name\":\"python\"}}\n]}\n"
}'
