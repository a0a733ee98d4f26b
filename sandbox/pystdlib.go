package sandbox

import "sync"

// pythonStdlib holds the names of the Python standard library's modules:
// sys.stdlib_module_names of CPython 3.10 to 3.13, the modules, packages,
// extension modules and built-in modules of 2.7 and 3.6 to 3.9 (from
// their installed libraries), and names later releases added (_colorize,
// annotationlib, compression…) or the library itself imports from
// sys.path (org: copy and pickle of 3.11 and before try Jython's
// org.python.core; review 189). A module of such a name beside a program
// python runs is imported in its place (pyshadow.go); sysconfig's
// _sysconfigdata_* is matched by its prefix (pythonLibName). Built on
// first use (a package's initialisation allocates little:
// TestPackageInitIsSmall).
var pythonStdlib = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{
		"BaseHTTPServer", "Bastion", "CGIHTTPServer", "ConfigParser", "Cookie", "DocXMLRPCServer",
		"HTMLParser", "MimeWriter", "Queue", "SimpleHTTPServer", "SimpleXMLRPCServer",
		"SocketServer", "StringIO", "UserDict", "UserList", "UserString", "_LWPCookieJar",
		"_MozillaCookieJar", "__future__", "_abc", "_abcoll", "_aix_support", "_android_support",
		"_apple_support", "_ast", "_asyncio", "_bisect", "_blake2", "_bootlocale", "_bootsubprocess",
		"_bz2", "_codecs", "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr",
		"_codecs_tw", "_collections", "_collections_abc", "_colorize", "_compat_pickle",
		"_compression", "_contextvars", "_crypt", "_csv", "_ctypes", "_ctypes_test", "_curses",
		"_curses_panel", "_datetime", "_dbm", "_decimal", "_dummy_thread", "_elementtree",
		"_frozen_importlib", "_frozen_importlib_external", "_functools", "_gdbm", "_hashlib",
		"_heapq", "_hmac", "_hotshot", "_imp", "_interpchannels", "_interpqueues", "_interpreters",
		"_io", "_ios_support", "_json", "_locale", "_lsprof", "_lzma", "_markupbase", "_md5", "_msi",
		"_multibytecodec", "_multiprocessing", "_opcode", "_opcode_metadata", "_operator",
		"_osx_support", "_overlapped", "_pickle", "_posixshmem", "_posixsubprocess", "_py_abc",
		"_py_warnings", "_pydatetime", "_pydecimal", "_pyio", "_pylong", "_pyrepl", "_queue",
		"_random", "_remote_debugging", "_scproxy", "_sha", "_sha1", "_sha2", "_sha256", "_sha3",
		"_sha512", "_signal", "_sitebuiltins", "_socket", "_sqlite3", "_sre", "_ssl", "_stat",
		"_statistics", "_string", "_strptime", "_struct", "_suggestions", "_symtable", "_sysconfig",
		"_testbuffer", "_testcapi", "_testimportmultiple", "_testinternalcapi", "_testmultiphase",
		"_thread", "_threading_local", "_tkinter", "_tokenize", "_tracemalloc", "_types", "_typing",
		"_uuid", "_warnings", "_weakref", "_weakrefset", "_winapi", "_wmi", "_xxsubinterpreters",
		"_xxtestfuzz", "_zoneinfo", "_zstd", "abc", "aifc", "annotationlib", "antigravity", "anydbm",
		"argparse", "array", "ast", "asynchat", "asyncio", "asyncore", "atexit", "audiodev",
		"audioop", "base64", "bdb", "binascii", "binhex", "bisect", "bsddb", "builtins", "bz2",
		"cPickle", "cProfile", "cStringIO", "calendar", "cgi", "cgitb", "chunk", "cmath", "cmd",
		"code", "codecs", "codeop", "collections", "colorsys", "commands", "compileall", "compiler",
		"compression", "concurrent", "configparser", "contextlib", "contextvars", "cookielib",
		"copy", "copy_reg", "copyreg", "crypt", "csv", "ctypes", "curses", "dataclasses", "datetime",
		"dbhash", "dbm", "decimal", "difflib", "dircache", "dis", "distutils", "doctest", "dumbdbm",
		"dummy_thread", "dummy_threading", "email", "encodings", "ensurepip", "enum", "errno",
		"faulthandler", "fcntl", "filecmp", "fileinput", "fnmatch", "formatter", "fpformat",
		"fractions", "ftplib", "functools", "future_builtins", "gc", "genericpath", "getopt",
		"getpass", "gettext", "glob", "graphlib", "grp", "gzip", "hashlib", "heapq", "hmac",
		"hotshot", "html", "htmlentitydefs", "htmllib", "http", "httplib", "idlelib", "ihooks",
		"imaplib", "imghdr", "imp", "importlib", "imputil", "inspect", "io", "ipaddress",
		"itertools", "json", "keyword", "lib2to3", "linecache", "linuxaudiodev", "locale", "logging",
		"lzma", "macpath", "macurl2path", "mailbox", "mailcap", "markupbase", "marshal", "math",
		"md5", "mhlib", "mimetools", "mimetypes", "mimify", "mmap", "modulefinder", "msilib",
		"msvcrt", "multifile", "multiprocessing", "mutex", "netrc", "new", "nis", "nntplib", "nt",
		"ntpath", "nturl2path", "numbers", "opcode", "operator", "optparse", "org", "os",
		"os2emxpath", "ossaudiodev", "parser", "pathlib", "pdb", "pickle", "pickletools", "pipes",
		"pkgutil", "platform", "plistlib", "popen2", "poplib", "posix", "posixfile", "posixpath",
		"pprint", "profile", "pstats", "pty", "pwd", "py_compile", "pyclbr", "pydoc", "pydoc_data",
		"pyexpat", "queue", "quopri", "random", "re", "readline", "repr", "reprlib", "resource",
		"rexec", "rfc822", "rlcompleter", "robotparser", "runpy", "sched", "secrets", "select",
		"selectors", "sets", "sgmllib", "sha", "shelve", "shlex", "shutil", "signal", "site",
		"smtpd", "smtplib", "sndhdr", "socket", "socketserver", "spwd", "sqlite3", "sre",
		"sre_compile", "sre_constants", "sre_parse", "ssl", "stat", "statistics", "statvfs",
		"string", "stringold", "stringprep", "strop", "struct", "subprocess", "sunau", "sunaudio",
		"symbol", "symtable", "sys", "sysconfig", "syslog", "tabnanny", "tarfile", "telnetlib",
		"tempfile", "termios", "test", "textwrap", "this", "threading", "time", "timeit", "tkinter",
		"toaiff", "token", "tokenize", "tomllib", "trace", "traceback", "tracemalloc", "tty",
		"turtle", "turtledemo", "types", "typing", "unicodedata", "unittest", "urllib", "urllib2",
		"urlparse", "user", "uu", "uuid", "venv", "warnings", "wave", "weakref", "webbrowser",
		"whichdb", "winreg", "winsound", "wsgiref", "xdrlib", "xml", "xmllib", "xmlrpc", "xmlrpclib",
		"xxlimited", "zipapp", "zipfile", "zipimport", "zlib", "zoneinfo",
	} {
		m[n] = true
	}
	return m
})
