"""Prelude tests on the real runner: namespace install, env(), read()/write(), output(), log()/phase()."""

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runner_harness import Runner, stream_text  # noqa: E402

STATUS = "application/x-evalkit-status"
HELPERS = ["agent", "completion", "display", "env", "log", "output", "parallel", "phase", "pipeline", "read", "tool",
           "write"]


def statuses(frames, op=None):
    found = [f["bundle"][STATUS] for f in frames if f.get("type") == "display" and STATUS in f.get("bundle", {})]
    return [event for event in found if op is None or event["op"] == op]


def error_of(frames):
    errors = [f for f in frames if f.get("type") == "error"]
    return errors[0] if errors else None


class HostRunner(Runner):
    """A runner whose `call` frames are answered by `handler(method, params, frame)` (raise to fail the call)."""

    def run(self, code, handler=None, **extra):
        self._ids += 1
        cell_id = "t%d" % self._ids
        frame = {"id": cell_id, "code": code}
        frame.update(extra)
        self.send(frame)
        frames = []
        while True:
            frame = self.next_frame()
            frames.append(frame)
            if frame.get("type") == "call":
                self.answer(frame, handler)
            if frame.get("type") == "done" and frame.get("id") == cell_id:
                return frames

    def answer(self, frame, handler):
        try:
            if handler is None:
                raise LookupError("no host handler registered for %s()" % frame["method"])
            value = handler(frame["method"], frame["params"], frame)
        except Exception as exc:
            self.send({"type": "reply", "callId": frame["callId"], "ok": False,
                       "error": {"name": type(exc).__name__, "message": str(exc)}})
            return
        self.send({"type": "reply", "callId": frame["callId"], "ok": True, "value": value})

    def value(self, expression, handler=None):
        """Evaluate `expression` in the kernel and return it decoded from JSON (fails the test on error)."""
        frames = self.run("import json as _j\nprint(_j.dumps(%s))" % expression, handler)
        error = error_of(frames)
        if error is not None:
            raise AssertionError("cell failed: %s: %s\n%s" % (error["ename"], error["evalue"],
                                                               "\n".join(error["traceback"])))
        return json.loads(stream_text(frames).strip().splitlines()[-1])


class PreludeCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = tempfile.mkdtemp(prefix="evalkit-prelude-")
        env = dict(os.environ)
        env["EVALKIT_HOME"] = os.path.join(cls.home, "home")
        cls.runner = HostRunner(env=env, cwd=cls.home)

    @classmethod
    def tearDownClass(cls):
        cls.runner.close()
        shutil.rmtree(cls.home, ignore_errors=True)

    def run_ok(self, code, handler=None):
        frames = self.runner.run(code, handler)
        error = error_of(frames)
        if error is not None:
            self.fail("cell failed: %s: %s\n%s" % (error["ename"], error["evalue"], "\n".join(error["traceback"])))
        return frames

    def run_error(self, code, handler=None):
        frames = self.runner.run(code, handler)
        error = error_of(frames)
        self.assertIsNotNone(error, "the cell should have failed; output: %r" % stream_text(frames))
        return error


class NamespaceTests(PreludeCase):
    def test_every_helper_is_in_the_namespace_and_reserved(self):
        names = self.runner.value("sorted(n for n in %r if n in globals())" % HELPERS)
        self.assertEqual(names, HELPERS)
        self.assertEqual(self.runner.value("sorted(__import__('sys').modules['evalkit_kernel.prelude.api'].__all__)"), HELPERS)
        reserved = self.runner.value("sorted(__import__('evalkit_kernel.core.hooks').core.hooks.reserved_names & set(%r))"
                                     % HELPERS)
        self.assertEqual(reserved, HELPERS)

    def test_display_is_the_display_modules_object(self):
        self.assertTrue(self.runner.value("display is __import__('sys').modules['evalkit_kernel.display.publish'].display"))

    def test_reinstalling_the_namespace_restores_rebound_and_deleted_helpers(self):
        self.run_ok("read = 5\ndel write\ndel parallel")
        self.run_ok("from evalkit_kernel.core import hooks as _h; from evalkit_kernel.core import state as _s\n_h.install_namespace(_s.user_namespace())")
        self.assertEqual(self.runner.value("[callable(read), callable(write), callable(parallel)]"), [True] * 3)

    def test_install_is_idempotent(self):
        count = self.runner.value(
            "(lambda p, h: (p.install(), p.install(), sum(f is p.install_names for f in h.namespace_installers))[-1])"
            "(__import__('evalkit_kernel.prelude.api').prelude.api, __import__('evalkit_kernel.core.hooks').core.hooks)"
        )
        self.assertEqual(count, 1)


class EnvTests(PreludeCase):
    def test_env_lists_gets_and_sets(self):
        self.assertEqual(self.runner.value("env('EVALKIT_PRELUDE_T', 'v1')"), "v1")
        self.assertEqual(self.runner.value("env('EVALKIT_PRELUDE_T')"), "v1")
        self.assertEqual(self.runner.value("__import__('os').environ['EVALKIT_PRELUDE_T']"), "v1")
        self.assertIsNone(self.runner.value("env('EVALKIT_PRELUDE_MISSING')"))
        listing = self.runner.value("env()")
        self.assertEqual(listing["EVALKIT_PRELUDE_T"], "v1")
        self.assertTrue(self.runner.value("(lambda d: (d.__setitem__('X_COPY', '1'), env('X_COPY'))[1])(env())") is None)

    def test_env_status_events_never_carry_values(self):
        frames = self.run_ok("env('EVALKIT_SECRET_T', 'hunter2'); env('EVALKIT_SECRET_T')")
        events = statuses(frames, "env")
        self.assertEqual([e["action"] for e in events], ["set", "get"])
        self.assertNotIn("hunter2", json.dumps(events))

    def test_env_rejects_bad_arguments(self):
        self.assertEqual(self.run_error("env('A', 3)")["ename"], "TypeError")
        self.assertEqual(self.run_error("env(3)")["ename"], "TypeError")
        self.assertEqual(self.run_error("env('A=B', 'x')")["ename"], "ValueError")
        self.assertEqual(self.run_error("env(value='x')")["ename"], "TypeError")


class FileTests(PreludeCase):
    def test_write_then_read_round_trips_non_ascii_text_and_creates_folders(self):
        path = os.path.join(self.home, "deep", "er", "naïve ☃.txt")
        text = "héllo wörld\r\n日本語\n🐍 snake\n"
        returned = self.runner.value("write(%r, %r)" % (path, text))
        self.assertEqual(returned, path)
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(), text.encode("utf-8"))
        self.assertEqual(self.runner.value("read(%r)" % path), text)

    def test_read_slices_lines_one_based(self):
        path = os.path.join(self.home, "lines.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join("line %d\n" % n for n in range(1, 11)))
        self.assertEqual(self.runner.value("read(%r, offset=3, limit=2)" % path), "line 3\nline 4\n")
        self.assertEqual(self.runner.value("read(%r, 10)" % path), "line 10\n")
        self.assertEqual(self.runner.value("read(%r, offset=50)" % path), "")
        self.assertEqual(self.runner.value("read(%r, limit=0)" % path), "")
        events = statuses(self.run_ok("read(%r, offset=2, limit=3)" % path), "read")
        self.assertEqual(events, [{"op": "read", "path": path, "offset": 2, "lines": 3}])

    def test_write_accepts_bytes_and_reports_its_status(self):
        path = os.path.join(self.home, "bin", "b.dat")
        frames = self.run_ok("write(%r, b'\\x00\\xffabc')" % path)
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(), b"\x00\xffabc")
        self.assertEqual(statuses(frames, "write"), [{"op": "write", "path": path, "bytes": 5}])

    def test_read_explains_binary_and_missing_files(self):
        path = os.path.join(self.home, "latin1.txt")
        with open(path, "wb") as handle:
            handle.write(b"caf\xe9\n")
        error = self.run_error("read(%r)" % path)
        self.assertEqual(error["ename"], "ValueError")
        self.assertIn("not UTF-8", error["evalue"])
        error = self.run_error("read(%r)" % os.path.join(self.home, "nope.txt"))
        self.assertEqual(error["ename"], "FileNotFoundError")
        self.assertIn("nope.txt", error["evalue"])

    def test_files_reject_bad_arguments(self):
        self.assertEqual(self.run_error("write('x.txt', {'a': 1})")["ename"], "TypeError")
        self.assertEqual(self.run_error("read('x.txt', offset=0)")["ename"], "ValueError")
        self.assertEqual(self.run_error("read('x.txt', limit=-1)")["ename"], "ValueError")
        self.assertEqual(self.run_error("read(5)")["ename"], "TypeError")
        self.assertEqual(self.run_error("read('x.txt', offset=1.5)")["ename"], "TypeError")

    def test_traceback_points_at_the_cell_not_the_runner(self):
        error = self.run_error("read(5)")
        self.assertTrue(any("<cell" in line for line in error["traceback"]))
        self.assertFalse(any("prelude_files" in line for line in error["traceback"]))


class OutputTests(PreludeCase):
    @classmethod
    def setUpClass(cls):
        super(OutputTests, cls).setUpClass()
        folder = os.path.join(cls.home, "home", "artifacts")
        os.makedirs(folder)
        with open(os.path.join(folder, "older-1.out"), "wb") as handle:
            handle.write(b"old\n")
        os.utime(os.path.join(folder, "older-1.out"), (1000, 1000))
        body = "\x1b[31mred error\x1b[0m line\nplain line\nanother error here\ncaf\xc3\xa9\n"
        with open(os.path.join(folder, "Abc_123.out"), "wb") as handle:
            handle.write(body.encode("latin-1"))
        cls.body = body.encode("latin-1").decode("utf-8")

    def test_output_reads_raw_text_by_uri_or_bare_id(self):
        self.assertEqual(self.runner.value("output('artifact://Abc_123')"), self.body)
        self.assertEqual(self.runner.value("output('Abc_123')"), self.body)
        self.assertEqual(self.runner.value("output('Abc_123', 'older-1')"), [self.body, "old\n"])

    def test_output_strips_ansi_filters_and_pages_lines(self):
        self.assertEqual(self.runner.value("output('Abc_123', format='stripped', limit=1)"), "red error line")
        self.assertEqual(self.runner.value("output('Abc_123', format='stripped', query='error')"),
                         "red error line\nanother error here")
        self.assertEqual(self.runner.value("output('Abc_123', format='stripped', offset=2, limit=2)"),
                         "plain line\nanother error here")
        self.assertEqual(self.runner.value("output('Abc_123', query='error', offset=2)"), "another error here")

    def test_output_json_format_numbers_lines(self):
        data = self.runner.value("output('Abc_123', format='json', query='error')")
        self.assertEqual(data["id"], "Abc_123")
        self.assertEqual(data["uri"], "artifact://Abc_123")
        self.assertEqual(data["total_lines"], 4)
        self.assertEqual(data["matched_lines"], 2)
        self.assertEqual(data["lines"], [{"line": 1, "text": "red error line"}, {"line": 3, "text": "another error here"}])

    def test_missing_artifact_lists_what_exists(self):
        error = self.run_error("output('nope')")
        self.assertEqual(error["ename"], "FileNotFoundError")
        self.assertIn("artifact://nope", error["evalue"])
        self.assertIn("Abc_123, older-1", error["evalue"])

    def test_output_without_ids_lists_artifacts_newest_first(self):
        listing = self.runner.value("output()")
        self.assertEqual([item["id"] for item in listing], ["Abc_123", "older-1"])
        self.assertEqual(listing[1]["uri"], "artifact://older-1")

    def test_output_rejects_bad_arguments(self):
        self.assertEqual(self.run_error("output('../etc/passwd')")["ename"], "ValueError")
        self.assertEqual(self.run_error("output('Abc_123', format='html')")["ename"], "ValueError")
        self.assertEqual(self.run_error("output(5)")["ename"], "TypeError")
        self.assertEqual(self.run_error("output('Abc_123', offset=0)")["ename"], "ValueError")


class ProgressTests(PreludeCase):
    def test_log_and_phase_emit_status_events_in_order(self):
        frames = self.run_ok("phase('Fetch'); log('got 3 pages'); log(42)")
        self.assertEqual(statuses(frames), [{"op": "phase", "title": "Fetch"}, {"op": "log", "message": "got 3 pages"},
                                            {"op": "log", "message": "42"}])
        self.assertEqual(stream_text(frames), "")

    def test_phase_rejects_bad_titles(self):
        self.assertEqual(self.run_error("phase(None)")["ename"], "TypeError")
        self.assertEqual(self.run_error("phase('  ')")["ename"], "ValueError")


if __name__ == "__main__":
    unittest.main()
