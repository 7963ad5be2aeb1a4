# capture.py - how tests/data/torch_h200/*.pt.trace.json.gz were made: on one H200 (torch 2.11.0+cu130,
# NCCL 2.28.9), `OUT=<dir> python3 capture.py`, 2026-11-30. A 2-step "ring" on one GPU: step 0 posts an
# NCCL send/recv (to itself: world size 1) and runs a causal SDPA call, step 1 one non-causal call,
# each inside record_function("ring_attn.fwd.step_K") (ring.pt.trace.json.gz, flash backend); then one
# forward + backward of SDPA with the flash, cuDNN and memory-efficient backends (names.pt.trace.json.gz).
import os,time,torch,torch.distributed as dist
from torch.profiler import profile,ProfilerActivity as PA,record_function as rf
from torch.nn.attention import sdpa_kernel,SDPBackend as SB
O=os.environ["OUT"];os.environ.update(MASTER_ADDR="127.0.0.1",MASTER_PORT="29517")
torch.cuda.set_device(0);c=1
try:dist.init_process_group("nccl",rank=0,world_size=1)
except Exception as e:print("nccl",e);c=0
m=lambda:torch.randn(1,16,8192,128,device="cuda",dtype=torch.bfloat16,requires_grad=True)
q,k,v=m(),m(),m();a=torch.randn(2,16,8192,128,device="cuda",dtype=torch.bfloat16);b=torch.empty_like(a)
def ring(be,n=2,bw=0):
 with sdpa_kernel(be):
  for s in range(n):
   with rf(f"ring_attn.fwd.step_{s}"):
    r=[]
    if c and s<n-1:
     try:r=dist.batch_isend_irecv([dist.P2POp(dist.isend,a,0),dist.P2POp(dist.irecv,b,0)])
     except Exception as e:print("p2p",e)
    o=torch.nn.functional.scaled_dot_product_attention(q,k,v,is_causal=s==0)
    for x in r:x.wait()
  if bw:o.sum().backward()
ok=[]
for be in [SB.FLASH_ATTENTION,SB.CUDNN_ATTENTION,SB.EFFICIENT_ATTENTION]:
 try:ring(be,bw=1);torch.cuda.synchronize();ok.append(be)
 except Exception as e:print(be,str(e)[:150])
with profile(activities=[PA.CPU,PA.CUDA]) as p:
 ring(SB.FLASH_ATTENTION);torch.cuda.synchronize()
p.export_chrome_trace(O+"/ring.pt.trace.json.gz")
with profile(activities=[PA.CPU,PA.CUDA]) as p:
 for be in ok:ring(be,n=1,bw=1)
 torch.cuda.synchronize()
p.export_chrome_trace(O+"/names.pt.trace.json.gz")
print(torch.__version__,torch.cuda.nccl.version(),ok)
