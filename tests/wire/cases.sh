# shellcheck shell=bash
# The runs of tests/wire/t_80_wire.sh (tests/rxe-two.sh), one a line:
# "NAME PORT PROGRAM ARGS".
# Sourced by both guests (tests/wire/server.sh in guest A, the server side;
# tests/wire/t_80_wire.sh in guest B, the client side under rb-wire), so
# both give each run the same options and port.
wire_cases() {
	echo "send_lat 18700 rb_send_lat -s 2 -n 20 --warmup 5"
	echo "write_bw 18701 rb_write_bw -s 8K -n 20"
	echo "read_lat 18702 rb_read_lat -s 64 -n 20 --warmup 5"
	echo "flow_label 18706 rb_write_bw -s 1K -n 20 -q 4 --flow_label=0x12345,0xabc"
	echo "reversed 18707 rb_write_bw -s 1K -n 20 --reversed"
	echo "loss 18703 rb_write_bw -s 8K -n 50"
	echo "mcast 18704 rb_send_bw -c UD -g -q 2 -s 64 -n 200"
	echo "pacing 18705 rb_write_bw -s 1024 -n 480 --rate_limit=2 --rate_units=Mbps --burst_size=16"
}
