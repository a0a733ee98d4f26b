package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// EgressPort is the egress proxy's port on 127.0.0.1 inside a command's
// own network namespace.
//
// Why this mechanism (issue 13): a command whose snapshot grants network
// starts in an empty network namespace of its own (only lo, brought up by
// Run). Before the helper reads its plan, Run enters that namespace from a
// locked thread, opens a listening socket on 127.0.0.1:EgressPort there and
// hands it to the egress proxy, which serves it from the host: the socket
// belongs to the command's namespace, so only that command (and its
// children) can connect to it, and every connection on it is the turn's (no
// credential to steal or pass on). Nothing else exists in the namespace: no
// route, no other address, no host loopback. Seccomp lets only AF_UNIX and
// AF_INET SOCK_STREAM (TCP, protocol 0 or IPPROTO_TCP; never AF_INET6, UDP,
// raw, MPTCP) sockets be created, and Landlock (ABI 4+) lets TCP connect
// reach EgressPort only, binding nothing. Landlock's port rule alone would
// allow that port on every address (NOTES-sandbox.md), which is why the
// namespace is the primary fence and Landlock the second.
const EgressPort = 3128

// EgressAttach serves the egress proxy on ln, a listening TCP socket on
// 127.0.0.1:EgressPort inside the command's network namespace. It returns
// the function that stops serving (Run calls it when the command has
// exited) or an error (Run then refuses to run the command).
type EgressAttach func(ln *os.File) (stop func(), err error)

// UseEgress routes the plan's network through the egress proxy served by
// attach: the command gets HTTP_PROXY, HTTPS_PROXY and ALL_PROXY (and their
// lower-case forms) pointing at it, and can reach nothing else. It needs a
// sandboxed plan with a restricted network, seccomp and the namespaces; it
// refuses (sandbox_unavailable) otherwise rather than run with less.
func (p *Plan) UseEgress(attach EgressAttach) error {
	switch {
	case attach == nil:
		return refuse(CodeSandboxUnavailable, "", "no egress proxy to attach")
	case !p.Sandboxed || !p.Sandbox.RestrictNetwork:
		return refuse(CodeSandboxUnavailable, "", "the egress proxy is for a sandboxed command whose network is restricted")
	case !p.Sandbox.Seccomp || !p.Sandbox.UserNamespaces:
		return refuse(CodeSandboxUnavailable, "", "the egress proxy needs seccomp and the sandbox's namespaces (network namespace), which the probe did not find")
	}
	p.Sandbox.ProxyPort, p.egress = EgressPort, attach
	url := fmt.Sprintf("http://127.0.0.1:%d", EgressPort)
	set := map[string]string{}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		set[k], set[strings.ToLower(k)] = url, url
	}
	env := make([]string, 0, len(p.Env)+len(set))
	for _, kv := range p.Env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || strings.EqualFold(k, "NO_PROXY") {
			continue // a no_proxy entry could only mean a refused direct connect
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	p.Env = env
	return nil
}

// listenInNetns opens a listening TCP socket on 127.0.0.1:port inside the
// network namespace of pid, bringing its loopback up first. It runs on a
// locked OS thread that enters the namespace and returns to the original
// one; a thread that cannot return is never unlocked (it ends with its
// goroutine instead of serving others from the wrong namespace).
func listenInNetns(pid, port int) (*os.File, error) {
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("egress: open own network namespace: %w", err)
	}
	defer orig.Close()
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("egress: open the command's network namespace: %w", err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("egress: enter the command's network namespace (needs CAP_SYS_ADMIN over it: a root server): %w", err)
	}
	ln, lerr := loopbackListener(port)
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, fmt.Errorf("egress: return to the server's network namespace: %w", err) // thread stays locked
	}
	runtime.UnlockOSThread()
	return ln, lerr
}

// loopbackListener brings lo up in the current thread's network namespace
// and listens on 127.0.0.1:port.
func loopbackListener(port int) (*os.File, error) {
	ctl, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("egress: socket: %w", err)
	}
	defer unix.Close(ctl)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return nil, err
	}
	if err := unix.IoctlIfreq(ctl, unix.SIOCGIFFLAGS, ifr); err != nil {
		return nil, fmt.Errorf("egress: lo flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(ctl, unix.SIOCSIFFLAGS, ifr); err != nil {
		return nil, fmt.Errorf("egress: bring lo up: %w", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("egress: socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("egress: bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("egress: listen: %w", err)
	}
	return os.NewFile(uintptr(fd), "egress-listener"), nil
}

// attachEgress opens the proxy's listener in the network namespace of pid
// and hands it to attach.
func attachEgress(attach EgressAttach, pid, port int) (func(), error) {
	if attach == nil {
		return nil, fmt.Errorf("egress: no proxy attached")
	}
	ln, err := listenInNetns(pid, port)
	if err != nil {
		return nil, err
	}
	stop, err := attach(ln)
	if err != nil {
		ln.Close()
		return nil, err
	}
	return stop, nil
}
