#!/usr/bin/env python3
"""gpu-ceilings.py - the GPU's measured ceilings and a framework's attention kernels, side by side with
ringsim's (run by scripts/gpu-check on a GPU machine that has PyTorch; not part of the build).

Prints, in the column order of dev/cuda's timing rows (lines start with two spaces):
  - the bf16 matrix-product rate (8192^3, random inputs) and the device-to-device copy bandwidth
    (bytes read + written), the two ceilings of METHOD's "two numbers";
  - PyTorch scaled_dot_product_attention with the FlashAttention-2 and cuDNN back ends, forward and
    forward+backward, on the shapes ringsim's kernels are timed on (batch 1, 32 query / 8 KV heads,
    head_dim 128, bf16), full and causal, so the TFLOP/s can be compared on the same card.
TFLOP/s count visible pairs: 4 d Hq per pair forward, 10 d Hq backward (2.5x), as the schedule does.
"""
import sys

import torch
import torch.nn.functional as F


def bench(fn, warmup=3, reps=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3)
    times.sort()
    return times[len(times) // 2]


def main():
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, cuda {torch.version.cuda}, cudnn {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name(0)}")
    n = 8192
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    t = bench(lambda: a @ b)
    print(f"  ceiling  gemm-bf16-8192^3  {t * 1e3:10.4f} ms  {2 * n ** 3 / t * 1e-12:8.1f} TFLOP/s")
    x = torch.empty(2 ** 30, device=dev, dtype=torch.uint8).random_(0, 255)
    y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x))
    print(f"  ceiling  copy-d2d-1GiB     {t * 1e3:10.4f} ms  {2 * x.numel() / t * 1e-9:8.1f} GB/s (read+write)")
    del a, b, x, y

    from torch.nn.attention import SDPBackend, sdpa_kernel
    hq, hkv, d = 32, 8, 128
    print("# %-12s %-8s %6s %6s %5s %5s %4s %-8s %10s %12s" % ("impl", "pass", "q", "k", "hq", "hkv", "d", "mask",
                                                               "time_ms", "TFLOPs_usef"))
    for name, backend in (("torch-fa2", SDPBackend.FLASH_ATTENTION), ("torch-cudnn", SDPBackend.CUDNN_ATTENTION)):
        for s in (4096, 16384):
            q = torch.randn(1, hq, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(1, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn(1, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            # GQA by expanding K, V (the FA2 back end of SDPA needs equal heads); the expand is outside
            # the timed region
            ke = k.repeat_interleave(hq // hkv, dim=1).detach().requires_grad_(True)
            ve = v.repeat_interleave(hq // hkv, dim=1).detach().requires_grad_(True)
            for causal in (False, True):
                pairs = s * (s + 1) / 2 if causal else s * s
                try:
                    with sdpa_kernel(backend):
                        t_f = bench(lambda: F.scaled_dot_product_attention(q, ke, ve, is_causal=causal))
                        o = F.scaled_dot_product_attention(q, ke, ve, is_causal=causal)
                        g = torch.randn_like(o)

                        def fb():
                            out = F.scaled_dot_product_attention(q, ke, ve, is_causal=causal)
                            out.backward(g)
                        t_fb = bench(fb)
                except RuntimeError as e:  # back end not available for this shape
                    print(f"# {name} s={s} causal={causal}: not available ({str(e).splitlines()[0][:80]})")
                    continue
                mask = "causal" if causal else "full"
                t_b = max(t_fb - t_f, 1e-9)
                print("  %-12s %-8s %6d %6d %5d %5d %4d %-8s %10.4f %12.1f" %
                      (name, "forward", s, s, hq, hkv, d, mask, t_f * 1e3, 4 * d * hq * pairs / t_f * 1e-12))
                print("  %-12s %-8s %6d %6d %5d %5d %4d %-8s %10.4f %12.1f" %
                      (name, "backward", s, s, hq, hkv, d, mask, t_b * 1e3, 10 * d * hq * pairs / t_b * 1e-12))
                sys.stdout.flush()
            del q, k, v, ke, ve


if __name__ == "__main__":
    main()
