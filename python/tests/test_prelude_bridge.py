"""Prelude tests on the real runner: completion(), agent(), tool, parallel(), pipeline() against a scripted host."""

import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_prelude import PreludeCase, error_of, statuses  # noqa: E402


def echo(method, params, frame):
    return {"completion": "answer to " + params.get("prompt", ""), "agent": "agent says " + params.get("prompt", ""),
            "tool": {"tool": params.get("name"), "args": params.get("args")}}[method]


class Recording(object):
    def __init__(self, reply):
        self.calls = []
        self.reply = reply

    def __call__(self, method, params, frame):
        self.calls.append((method, params, frame))
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply(params) if callable(self.reply) else self.reply


class CompletionTests(PreludeCase):
    def test_completion_sends_its_arguments_and_returns_the_text(self):
        host = Recording("4")
        self.assertEqual(self.runner.value("completion('2+2?', model='m1', system='be terse')", host), "4")
        method, params, frame = host.calls[0]
        self.assertEqual(method, "completion")
        self.assertEqual(params, {"prompt": "2+2?", "model": "m1", "system": "be terse"})
        self.assertTrue(frame["id"].startswith("t"))

    def test_completion_with_a_schema_parses_and_checks_json(self):
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        host = Recording('```json\n{"n": 4}\n```')
        self.assertEqual(self.runner.value("completion('n?', schema=%r)" % schema, host), {"n": 4})
        self.assertEqual(host.calls[0][1]["schema"], schema)

    def test_a_non_json_answer_with_a_schema_raises_value_error_with_the_text(self):
        error = self.run_error("completion('n?', schema={'type': 'object'})", Recording("sorry, I cannot"))
        self.assertEqual(error["ename"], "AnswerError")
        self.assertIn("sorry, I cannot", error["evalue"])
        frames = self.run_ok("try:\n    completion('n?', schema={'type': 'object'})\n"
                             "except ValueError as e:\n    print(repr(e.text))", Recording("sorry"))
        self.assertIn("'sorry'", "".join(f.get("data", "") for f in frames if f.get("type") == "stdout"))

    def test_an_answer_that_breaks_the_schema_names_the_field(self):
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        error = self.run_error("completion('n?', schema=%r)" % schema, Recording('{"n": "four"}'))
        self.assertIn("$.n: expected integer, got string", error["evalue"])
        error = self.run_error("completion('n?', schema=%r)" % schema, Recording("{}"))
        self.assertIn("missing required property 'n'", error["evalue"])

    def test_a_host_failure_becomes_an_exception_carrying_the_hosts_message(self):
        error = self.run_error("completion('x')", Recording(RuntimeError("model overloaded")))
        self.assertEqual(error["ename"], "BridgeError")
        self.assertIn("completion() failed on the host", error["evalue"])
        self.assertIn("model overloaded", error["evalue"])
        self.assertEqual(statuses(self.runner.run("try:\n    completion('x')\nexcept Exception:\n    pass",
                                                  Recording(RuntimeError("boom"))), "completion")[-1]["state"], "error")

    def test_a_missing_handler_fails_at_once_naming_the_helper(self):
        started = time.time()
        error = self.run_error("completion('x')", None)
        self.assertLess(time.time() - started, 1.0)
        self.assertIn("no host handler registered for completion()", error["evalue"])

    def test_completion_validates_its_arguments_without_calling_the_host(self):
        host = Recording("x")
        self.assertEqual(self.run_error("completion(5)", host)["ename"], "TypeError")
        self.assertEqual(self.run_error("completion('  ')", host)["ename"], "ValueError")
        self.assertEqual(self.run_error("completion('x', model=3)", host)["ename"], "TypeError")
        self.assertEqual(self.run_error("completion('x', schema='json')", host)["ename"], "TypeError")
        self.assertEqual(self.run_error("completion('x', 'model')", host)["ename"], "TypeError")
        self.assertEqual(host.calls, [])

    def test_completion_emits_start_and_done_status(self):
        frames = self.run_ok("completion('hello')", echo)
        events = statuses(frames, "completion")
        self.assertEqual([e["state"] for e in events], ["start", "done"])
        self.assertEqual(events[0]["chars"], 5)


class AgentTests(PreludeCase):
    def test_agent_returns_the_text_of_a_string_reply(self):
        host = Recording("done: 3 files")
        self.assertEqual(self.runner.value("agent('count files', agent='explore', label='count')", host),
                         "done: 3 files")
        self.assertEqual(host.calls[0][1], {"prompt": "count files", "agent": "explore", "label": "count"})

    def test_agent_handle_builds_the_node_from_an_object_reply(self):
        reply = {"text": '{"ok": true}', "output": "full transcript", "handle": "agent://a1", "id": "a1",
                 "agent": "task"}
        node = self.runner.value("agent('go', handle=True, schema={'type': 'object'})", Recording(reply))
        self.assertEqual(node, {"text": '{"ok": true}', "output": "full transcript", "handle": "agent://a1",
                                "id": "a1", "agent": "task", "data": {"ok": True}})

    def test_agent_handle_fills_defaults_from_a_string_reply(self):
        host = Recording("plain")
        node = self.runner.value("agent('go', agent='review', handle=True)", host)
        self.assertEqual(node, {"text": "plain", "output": "plain", "handle": None, "id": None, "agent": "review"})
        self.assertIs(host.calls[0][1]["handle"], True)

    def test_agent_with_a_schema_returns_parsed_data(self):
        self.assertEqual(self.runner.value("agent('list', schema={'type': 'array', 'items': {'type': 'string'}})",
                                           Recording('["a", "b"]')), ["a", "b"])

    def test_agent_rejects_a_reply_without_text(self):
        error = self.run_error("agent('go')", Recording({"id": 3}))
        self.assertIn("must return a string", error["evalue"])

    def test_agent_validates_handle(self):
        self.assertEqual(self.run_error("agent('go', handle='yes')", Recording("x"))["ename"], "TypeError")


class ToolTests(PreludeCase):
    def test_attribute_and_item_forms_call_the_named_tool(self):
        host = Recording(lambda params: params)
        self.assertEqual(self.runner.value("tool.search(query='cats', limit=2)", host),
                         {"name": "search", "args": {"query": "cats", "limit": 2}})
        self.assertEqual(self.runner.value("tool['web-fetch']({'url': 'u'})", host),
                         {"name": "web-fetch", "args": {"url": "u"}})
        self.assertEqual([c[0] for c in host.calls], ["tool", "tool"])

    def test_tool_errors_name_the_tool(self):
        error = self.run_error("tool.grep(pattern='x')", Recording(ValueError("bad pattern")))
        self.assertIn("tool.grep() failed on the host", error["evalue"])
        self.assertIn("bad pattern", error["evalue"])

    def test_tool_validates_arguments_and_probes_do_not_call_the_host(self):
        host = Recording("x")
        self.assertEqual(self.run_error("tool.grep(1)", host)["ename"], "TypeError")
        self.assertEqual(self.run_error("tool[3]", host)["ename"], "TypeError")
        self.assertEqual(self.runner.value("hasattr(tool, '__wrapped__')", host), False)
        self.run_ok("import copy; copy.copy(tool); repr(tool)", host)
        self.assertEqual(host.calls, [])


class ParallelTests(PreludeCase):
    def test_eight_calls_are_in_flight_together_and_results_keep_input_order(self):
        pending = []
        # Answer only once all 8 calls have arrived (proves they overlap), in reverse order.
        frames = self._run_deferred(
            "r = parallel([lambda i=i: completion('q%d' % i) for i in range(8)])\nprint(r)", 8, pending,
            lambda frame: "a" + frame["params"]["prompt"][1:], reverse=True)
        self.assertIn("['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']", "".join(
            f.get("data", "") for f in frames if f.get("type") == "stdout"))
        self.assertEqual({f["id"] for f in pending}, {"t%d" % self.runner._ids})

    def test_await_form_gives_the_same_list(self):
        self.assertEqual(self.runner.value("await parallel([lambda: 1, lambda: 2])"), [1, 2])
        self.assertEqual(self.runner.value("isinstance(parallel([lambda: 3]), list)"), True)

    def test_the_lowest_index_exception_wins(self):
        code = ("import time\n"
                "def slow_fail():\n    time.sleep(0.3)\n    raise KeyError('first')\n"
                "def fast_fail():\n    raise ValueError('second')\n"
                "parallel([lambda: 1, slow_fail, fast_fail, lambda: 4])")
        error = self.run_error(code)
        self.assertEqual(error["ename"], "KeyError")
        self.assertIn("first", error["evalue"])

    def test_callables_not_started_after_a_failure_are_skipped(self):
        frames = self.run_ok("ran = []\ndef f(i):\n    ran.append(i)\n    if i == 0: raise RuntimeError('x')\n"
                             "try:\n    parallel([lambda i=i: f(i) for i in range(50)], workers=1)\n"
                             "except RuntimeError:\n    pass\nprint(ran)")
        self.assertIn("[0]", "".join(f.get("data", "") for f in frames if f.get("type") == "stdout"))

    def test_coroutines_returned_by_callables_are_run(self):
        self.assertEqual(self.runner.value(
            "(lambda asyncio: parallel([lambda: asyncio.sleep(0.01, result=7), lambda: 8]))(__import__('asyncio'))"),
            [7, 8])

    def test_parallel_validates_its_arguments(self):
        self.assertEqual(self.run_error("parallel(lambda: 1)")["ename"], "TypeError")
        self.assertEqual(self.run_error("parallel([1, 2])")["ename"], "TypeError")
        self.assertEqual(self.run_error("parallel([lambda: 1], workers=0)")["ename"], "ValueError")
        self.assertEqual(self.runner.value("parallel([])"), [])

    def test_parallel_emits_start_and_done_status(self):
        events = statuses(self.run_ok("parallel([lambda: 1, lambda: 2, lambda: 3])"), "parallel")
        self.assertEqual([(e["state"], e["count"]) for e in events], [("start", 3), ("done", 3)])
        self.assertEqual(events[0]["workers"], 3)

    def test_pipeline_runs_each_stage_as_a_wave(self):
        code = ("import threading\nseen = []\nlock = threading.Lock()\n"
                "def a(x):\n    with lock: seen.append(('a', x))\n    return x * 10\n"
                "def b(x):\n    with lock: seen.append(('b', x))\n    return x + 1\n"
                "r = pipeline([1, 2, 3], a, b)\n"
                "assert [s for s, _ in seen] == ['a'] * 3 + ['b'] * 3, seen")
        self.assertEqual(self.runner.value("pipeline([1, 2, 3], lambda x: x * 10, lambda x: x + 1)"), [11, 21, 31])
        self.run_ok(code)
        events = statuses(self.run_ok("pipeline([1], lambda x: x, lambda x: x)"), "pipeline")
        self.assertEqual([e["state"] for e in events], ["start", "stage", "stage", "done"])

    def test_pipeline_validates_its_arguments(self):
        self.assertEqual(self.run_error("pipeline([1])")["ename"], "TypeError")
        self.assertEqual(self.run_error("pipeline([1], 5)")["ename"], "TypeError")
        self.assertEqual(self.run_error("pipeline(lambda x: x, [1])")["ename"], "TypeError")

    def test_stale_workers_cannot_call_the_host_for_a_later_cell(self):
        # An interrupted parallel() leaves its worker running; when it wakes in the next cell it must not send calls.
        self.runner.send({"id": "stale", "code": "import time\nparallel([lambda: (time.sleep(0.6), completion('late'))])"})
        while self.runner.next_frame().get("type") != "started":
            pass
        time.sleep(0.2)
        os.killpg(self.runner.proc.pid, 2)
        while True:
            frame = self.runner.next_frame()
            if frame.get("type") == "done":
                self.assertTrue(frame["cancelled"])
                break
        host = Recording("should not be called")
        self.run_ok("import time\ntime.sleep(1.0)", host)
        self.assertEqual(host.calls, [])

    def _run_deferred(self, code, expected, pending, reply_for, reverse=False):
        self.runner._ids += 1
        cell_id = "t%d" % self.runner._ids
        self.runner.send({"id": cell_id, "code": code})
        frames = []
        deadline = time.time() + 10
        while time.time() < deadline:
            frame = self.runner.next_frame()
            frames.append(frame)
            if frame.get("type") == "call":
                pending.append(frame)
                if len(pending) == expected:
                    for call in (reversed(pending) if reverse else pending):
                        self.runner.send({"type": "reply", "callId": call["callId"], "ok": True,
                                          "value": reply_for(call)})
            if frame.get("type") == "done":
                self.assertIsNone(error_of(frames), json.dumps(error_of(frames)))
                return frames
        self.fail("cell did not finish")


if __name__ == "__main__":
    unittest.main()
