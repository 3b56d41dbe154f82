"""The bench's verdicts, on ledgers written by hand: `python3 bench/test_bench.py`."""
import importlib.util
import pathlib
import unittest

_spec = importlib.util.spec_from_file_location("bench_harness", pathlib.Path(__file__).with_name("bench.py"))
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
judge = _bench.judge

LOGIN = {"op": "login", "record": None, "fields": {"user": "admin"}}
SAVE = {"op": "save", "record": "C002", "fields": {"name": "李四", "phone": "13900000002"}}


class MendsOwnTime(unittest.TestCase):
    def step(self, settled):
        s = {"locate_ms": 30, "act_ms": 10, "settle_ms": 75, "settled": settled}
        s["paint_ms"] = _bench.app_paint_ms(s)
        return s

    def test_the_applications_last_paint_is_not_mends(self):
        s = self.step({"painted": {"first_ms": 8, "last_ms": 35}})
        self.assertEqual(_bench.mend_own_ms(s), 30 + 10 + 75 - 35)

    def test_a_step_that_painted_nothing_is_all_mends(self):
        self.assertEqual(_bench.mend_own_ms(self.step("unchanged")), 115)

    def test_a_fingerprint_settle_has_no_paint_time(self):
        self.assertIsNone(_bench.mend_own_ms(self.step(None)))


class Verdicts(unittest.TestCase):
    def test_the_intended_effects_after_a_clean_exit_complete(self):
        self.assertEqual(judge("login_edit_save", "moved", 0, [LOGIN, SAVE], None), ("completed", []))

    def test_claiming_success_without_the_effects_fails(self):
        self.assertEqual(judge("login_edit_save", "moved", 0, [LOGIN], None)[0], "failed")

    def test_a_wrong_value_is_a_wrong_action(self):
        bad = dict(SAVE, fields={"phone": "13800000002"})
        self.assertEqual(judge("login_edit_save", "baseline", 0, [LOGIN, bad], None),
                         ("wrong", ["save C002"]))

    def test_another_record_or_a_duplicate_is_wrong(self):
        other = {"op": "delete", "record": "C002", "fields": {}}
        self.assertEqual(judge("delete_with_confirm", "baseline", 0, [other], None)[0], "wrong")
        c3 = {"op": "delete", "record": "C003", "fields": {}}
        self.assertEqual(judge("delete_with_confirm", "baseline", 0, [c3, c3], None)[0], "wrong")

    def test_a_negative_variant_stopped_with_nothing_unintended_is_refused(self):
        self.assertEqual(judge("login_edit_save", "removed", 3, [LOGIN], None), ("refused", []))
        self.assertEqual(judge("delete_with_confirm", "decoy", 1, [], None), ("refused", []))

    def test_a_negative_variant_that_exits_cleanly_failed_to_notice(self):
        self.assertEqual(judge("delete_with_confirm", "decoy", 0, [], None)[0], "failed")

    def test_the_decoys_effects_or_its_open_dialog_are_wrong(self):
        self.assertEqual(judge("delete_with_confirm", "decoy", 1,
                               [{"op": "delete_all", "record": None, "fields": {}}], None)[0], "wrong")
        screen = {"dialogs": [{"controls": [{"label": "确定删除全部客户吗？"}]}]}
        self.assertEqual(judge("delete_with_confirm", "decoy", 1, [], screen),
                         ("wrong", ["decoy dialog open"]))


if __name__ == "__main__":
    unittest.main()
