package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testProbeArg runs the test binary as a small probe program (inside the
// sandbox): each probe prints "ok" or the error and exits 0 on success, 1 on
// failure, 2 on misuse.
const testProbeArg = "__sandbox-test-probe"

func runTestProbe(args []string) int {
	if len(args) == 0 {
		fmt.Println("usage: probe KIND [ARGS]")
		return 2
	}
	err := testProbe(args[0], args[1:])
	if err != nil {
		fmt.Println("refused:", err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func testProbe(kind string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	sock := func(domain, typ, proto int) error {
		fd, err := unix.Socket(domain, typ, proto)
		if err == nil {
			unix.Close(fd)
		}
		return err
	}
	switch kind {
	case "tcp-connect": // ADDR (127.0.0.1:port)
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		port, _ := strconv.Atoi(arg(0))
		return unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "udp-send": // PORT
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		port, _ := strconv.Atoi(arg(0))
		return unix.Sendto(fd, []byte("escaped"), 0, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "mptcp-connect": // PORT on 127.0.0.1
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		defer unix.Close(fd)
		port, _ := strconv.Atoi(arg(0))
		return unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	case "udp6":
		return sock(unix.AF_INET6, unix.SOCK_DGRAM, 0)
	case "raw":
		return sock(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
	case "mptcp":
		return sock(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
	case "netlink":
		return sock(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
	case "packet":
		return sock(unix.AF_PACKET, unix.SOCK_RAW, 0)
	case "vsock":
		return sock(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
	case "io_uring":
		params := make([]byte, 120)
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
		if e != 0 {
			return e
		}
		unix.Close(int(fd))
		return nil
	case "x32": // amd64: getpid through the x32 ABI
		_, _, e := unix.Syscall(0x40000000|unix.SYS_GETPID, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "unix-pair":
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil
	case "unix-connect": // PATH of a listening unix socket
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrUnix{Name: arg(0)})
	case "read": // PATH
		_, err := os.ReadFile(arg(0))
		return err
	case "write": // PATH
		return os.WriteFile(arg(0), []byte("written by the sandbox\n"), 0o644)
	case "signal": // PID
		pid, _ := strconv.Atoi(arg(0))
		return unix.Kill(pid, 0)
	}
	return nsProbe(kind, args)
}
