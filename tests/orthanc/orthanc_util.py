"""orthanc_util.py - helpers of the Orthanc storage-plugin tests: a real Orthanc (Debian's
/usr/sbin/Orthanc) started on free loopback ports with a temporary configuration, its REST API,
the corpus, and the skip rule (exit code 77 with the reason, which ctest reports as skipped)."""
import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ORTHANC = "/usr/sbin/Orthanc"
DICOMWEB = "/usr/share/orthanc/plugins/libOrthancDicomWeb.so"
SKIP = 77


def skip(reason):
    print("SKIPPED: " + reason)
    sys.exit(SKIP)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--plugin", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--shared", required=True)
    p.add_argument("--asan", default="0")
    p.add_argument("--work", default=None)
    args = p.parse_args()
    if not os.path.exists(ORTHANC):
        skip(ORTHANC + " is missing (Debian package orthanc; tests/run-tests.sh installs it)")
    if not os.path.isdir(os.path.join(args.shared, "testdata")):
        skip("no corpus at " + os.path.join(args.shared, "testdata"))
    try:
        import pydicom  # noqa: F401
    except ImportError:
        skip("pydicom is missing (Debian package python3-pydicom)")
    return args


def corpus(shared):
    """Every DICOM file of shared/testdata, sorted."""
    root = os.path.join(shared, "testdata")
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names if n.lower().endswith(".dcm")]
    return sorted(files)


def native_copies(shared, dest):
    """Explicit VR Little Endian copies of the corpus (testdata/make-native.sh), or [] without gdcmconv."""
    if shutil.which("gdcmconv") is None:
        return []
    script = os.path.join(shared, "testdata", "make-native.sh")
    subprocess.run([script, dest], check=True, stdout=subprocess.DEVNULL)
    return corpus_in(dest)


def corpus_in(root):
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names if n.lower().endswith(".dcm")]
    return sorted(files)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def md5(data):
    return hashlib.md5(data).hexdigest()


class HttpError(Exception):
    def __init__(self, status, body):
        super().__init__("HTTP %d: %s" % (status, body[:200]))
        self.status = status


class Orthanc:
    """One Orthanc process with its own storage folder; the plugin when plugin is given."""

    def __init__(self, workdir, storage, plugin=None, asan=False, dicomweb=False, pcwt=None,
                 extra=None, verbose=False, name="orthanc"):
        self.workdir = workdir
        self.storage = storage
        self.http_port = free_port()
        self.dicom_port = free_port()
        self.aet = "PCWTTEST"
        plugins = []
        if plugin:
            plugins.append(plugin)
        if dicomweb:
            plugins.append(DICOMWEB)
        config = {
            "Name": "pcwt-test",
            "StorageDirectory": storage,
            "IndexDirectory": storage,
            "HttpPort": self.http_port,
            "DicomPort": self.dicom_port,
            "DicomAet": self.aet,
            "RemoteAccessAllowed": False,
            "AuthenticationEnabled": False,
            "HttpServerEnabled": True,
            "DicomServerEnabled": True,
            "DicomModalities": {"getscu": ["GETSCU", "127.0.0.1", free_port()]},
            "ConcurrentJobs": 2,
            "DicomCacheSize": 0,  # every read goes to the storage area
            "MaximumStorageCacheSize": 0,
            "HttpThreadsCount": 16,
            "Plugins": plugins,
        }
        if dicomweb:
            config["DicomWeb"] = {"Enable": True, "Root": "/dicom-web/"}
        if asan and plugin:
            # Under the preloaded sanitizer runtime Orthanc deadlocks in std::locale with a UTF-8
            # locale, and its mallopt(M_ARENA_MAX) call fails (the sanitizer's allocator).
            config["Locale"] = "C"
            config["MallocArenaMax"] = 0
        if plugin:
            section = {"Enable": True}
            section.update(pcwt or {})
            config["PCWT"] = section
        config.update(extra or {})
        self.config_path = os.path.join(workdir, name + ".json")
        with open(self.config_path, "w") as f:
            json.dump(config, f, indent=1)
        self.log_path = os.path.join(workdir, name + ".log")
        self.env = dict(os.environ)
        if asan and plugin:
            # Orthanc is not instrumented: the sanitizer runtime must come first for the plugin to load.
            lib = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
            self.env["LD_PRELOAD"] = lib
            self.env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
        self.verbose = verbose
        self.proc = None

    def start(self):
        args = [ORTHANC, self.config_path] + (["--verbose"] if self.verbose else [])
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("Orthanc exited (%d) at start:\n%s" % (self.proc.returncode, self.log_text()[-3000:]))
            try:
                self.get("/system")
                return self
            except (OSError, HttpError):
                time.sleep(0.2)
        self.kill()
        raise AssertionError("Orthanc did not answer within 60 s:\n" + self.log_text()[-3000:])

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()
        self.proc = None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()
        self.proc = None

    def request(self, method, path, data=None, headers=None, timeout=120):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.http_port, path), data=data,
                                     method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            raise HttpError(e.code, e.read().decode("utf-8", "replace"))

    def get(self, path, headers=None):
        return self.request("GET", path, headers=headers)[0]

    def json(self, path, method="GET", data=None):
        body = self.request(method, path, data)[0]
        return json.loads(body) if body else None

    def upload(self, data):
        return self.json("/instances", "POST", data)

    def file(self, instance):
        return self.get("/instances/%s/file" % instance)

    def lookup(self, sop_uid):
        hits = self.json("/tools/lookup", "POST", sop_uid.encode())
        ids = [h["ID"] for h in hits if h["Type"] == "Instance"]
        return ids[0] if ids else None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def sop_uid(path):
    import pydicom
    return str(pydicom.dcmread(path, stop_before_pixels=True).SOPInstanceUID)


def stored_files(storage):
    """The attachment files of a storage folder (ROOT/ab/cd/UUID), temporaries apart."""
    out = []
    for d, _, names in os.walk(storage):
        rel = os.path.relpath(d, storage).split(os.sep)
        if len(rel) == 2 and all(len(x) == 2 for x in rel):
            out += [os.path.join(d, n) for n in names if len(n) == 36]
    return sorted(out)


def is_container(path):
    with open(path, "rb") as f:
        return f.read(8) == b"PCWTORC1"


def workdir(args, name):
    base = args.work or tempfile.gettempdir()
    d = tempfile.mkdtemp(prefix="pcwt-orthanc-%s-" % name, dir=base)
    return d


def test_images(args, work):
    """Files to upload, one per SOP Instance UID: the native copies (PCWT codes most of them),
    else the originals."""
    files = native_copies(args.shared, os.path.join(work, "native")) or corpus(args.shared)
    seen, out = set(), []
    for f in files:
        uid = sop_uid(f)
        if uid not in seen:
            seen.add(uid)
            out.append(f)
    return out


def storage_test(name):
    """The start of a test that uploads test_images into one storage folder: its arguments, its
    work folder (named for the test), the images and the storage folder (work/storage)."""
    args = parse_args()
    work = workdir(args, name)
    files = test_images(args, work)
    return args, work, files, os.path.join(work, "storage")


def run_tool(args, *tool_args, check_rc=True):
    r = subprocess.run([args.tool] + list(tool_args), capture_output=True, text=True, timeout=600)
    if check_rc and r.returncode != 0:
        raise AssertionError("pcwt-orthanc-compress %s: exit %d\n%s%s" % (" ".join(tool_args), r.returncode,
                                                                         r.stdout, r.stderr))
    return r


def done(work):
    """A passed test leaves nothing behind."""
    shutil.rmtree(work, ignore_errors=True)
