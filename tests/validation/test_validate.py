"""The runner's own arithmetic (bench/published/validate.py), by hand: the sources' FLOP counts, the
ranges of combined quantities, the power-of-two context, token sizes, which cases are a curve's own
source, and the baseline comparison. Run by CTest validation_runner."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "published"))
import validate as v  # noqa: E402


class Counts(unittest.TestCase):
    def test_flash_attention_flops(self):
        # 4 b L^2 H d: batch 2, 8K tokens, 16 heads of d 128 = 4 * 2 * 8192^2 * 16 * 128 = 2^40
        r = {"batch": "2", "seqlen": "8192", "heads": "16", "head_dim": "128"}
        self.assertEqual(v.fa_flops(r, False), 1099511627776.0)
        self.assertEqual(v.fa_flops(r, True), 549755813888.0)

    def test_cudnn_flops(self):
        # 2 b H pairs 2d, pairs = S(S+1)/2 causal = 2098176 at S = 2048
        r = {"batch": "1", "heads": "64", "head_dim": "128", "seqlen": "2048", "mask": "causal"}
        self.assertEqual(v.cudnn_flops(r, "forward"), 2.0 * 64 * 2098176 * 256)
        self.assertEqual(v.cudnn_flops(r, "backward"), 2.5 * 2.0 * 64 * 2098176 * 256)
        r["mask"] = "full"
        self.assertEqual(v.cudnn_flops(r, "forward"), 2.0 * 64 * 2048 * 2048 * 256)

    def test_tokens(self):
        self.assertEqual(v.tokens(131072), "128K")
        self.assertEqual(v.tokens(512), "512")
        self.assertEqual(v.tokens(1536), "1536")     # not a multiple of 1024: as is
        self.assertEqual(v.tokens("65536"), "64K")

    def test_pow2_floor(self):
        self.assertEqual(v.pow2_floor(549248), 524288.0)
        self.assertEqual(v.pow2_floor(524288), 524288.0)
        self.assertEqual(v.pow2_floor(524287), 262144.0)
        self.assertEqual(v.pow2_floor(0.5), 0.0)


class Ranges(unittest.TestCase):
    def test_no_range_without_every_part(self):
        self.assertEqual(v.combine([(2.0, 1.0, 3.0), (4.0, None, None)], lambda a, b: a / b), (0.5, None, None))

    def test_corners_of_a_ratio(self):
        # a / b over a in [1, 3], b in [2, 8]: least 1/8, greatest 3/2
        self.assertEqual(v.combine([(2.0, 1.0, 3.0), (4.0, 2.0, 8.0)], lambda a, b: a / b), (0.5, 0.125, 1.5))

    def test_rate_over_a_sum(self):
        self.assertEqual(v.combine([(1.0, 0.5, 2.0), (1.0, 0.5, 2.0)], lambda a, b: 1 / (a + b)), (0.5, 0.25, 1.0))

    def test_value_reads_low_and_high(self):
        self.assertEqual(v.value({"t_s": "2", "t_s_low": "1", "t_s_high": "3"}, "t_s"), (2.0, 1.0, 3.0))
        self.assertEqual(v.value({"t_s": "2"}, "t_s"), (2.0, None, None))
        with self.assertRaises(v.CaseError):
            v.value({"t_s": "nan"}, "t_s")


class Roles(unittest.TestCase):
    def test_curve_source_is_an_input(self):
        # profiles/devices/h100-sxm.json's FlashAttention-2 forward full d 128 curve cites the FA3 paper and
        # holds (8192, 8192, 370e12)
        self.assertEqual(v.curve_point_role("h100-sxm", "flash-attn-2", "forward", "full", 128, "bf16", 8192, 370,
                                            "2407.08608"), "input")

    def test_same_number_from_another_source_is_held_out(self):
        self.assertEqual(v.curve_point_role("h100-sxm", "flash-attn-2", "forward", "full", 128, "bf16", 8192, 370,
                                            "cudnn-frontend"), "held-out")
        self.assertEqual(v.curve_point_role("h100-sxm", "flash-attn-2", "forward", "full", 64, "bf16", 8192, 370,
                                            "2407.08608"), "held-out")


class Baseline(unittest.TestCase):
    def setUp(self):
        import tempfile
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "baseline.csv")

    def tearDown(self):
        self.dir.cleanup()

    def check(self, baseline_text, results):
        with open(self.path, "w") as f:
            f.write(baseline_text)
        return v.check_baseline(results, self.path, 0.01)

    @staticmethod
    def case(name, pub, pred, failure=None):
        return {"case": name, "published": pub, "predicted": pred, "unit": "s", "failure": failure}

    def test_worse_better_new_gone(self):
        import math
        text = "# comment\ncase,abs_log_error\na,%.6f\nb,%.6f\nc,0.1\ngone,0.1\n" % (math.log(1.2), math.log(1.2))
        results = [self.case("a", 1.0, 1.25), self.case("b", 1.0, 1.1), self.case("c", 1.0, 1.1),
                   self.case("new", 1.0, 2.0)]
        worse, better, new = self.check(text, results)
        self.assertEqual([w.split(":")[0] for w in worse], ["a", "gone"])
        self.assertEqual(better, ["b"])
        self.assertEqual(new, ["new"])

    def test_missing_prediction_is_worse(self):
        worse, _, _ = self.check("case,abs_log_error\na,0.5\n", [self.case("a", 1.0, None, "ringsim model: exit 2")])
        self.assertEqual(len(worse), 1)
        self.assertIn("no prediction", worse[0])

    def test_none_in_the_baseline(self):
        # a case without a prediction at lock-in: still none is not worse, a prediction now is better
        results = [self.case("a", 1.0, None, "ringsim plan: exit 2"), self.case("b", 1.0, 3.0)]
        self.assertEqual(self.check("case,abs_log_error\na,none\nb,none\n", results), ([], ["b"], []))


if __name__ == "__main__":
    unittest.main()
