# Group Query Attention: softmax(Q K^T * scale) V, Hq query heads sharing Hkv key/value heads.
# sizes: B=1 Hq=32 Hkv=8 S=2048 D=128
# sizes: B=1 Hq=32 Hkv=8 S=4096 D=128
# sizes: B=1 Hq=32 Hkv=8 S=8192 D=128
# Q is [B,Hq,S,D], K and V are [B,Hkv,S,D]; the result is [B,Hq,S,D]. Query head h uses
# key/value head h // (Hq/Hkv). No causal mask; scale defaults to 1/sqrt(128).
# The paper lists GQA under its M x N x K table (2K/4K/8K) without saying how those three
# sizes map onto GQA's; these are LLaMA-3-8B heads (32 query, 8 KV, head dim 128, batch 1)
# with the sequence length S swept over 2K/4K/8K.
import numpy as np


def kernel(Q: "f32[B,Hq,S,D]", K: "f32[B,Hkv,S,D]", V: "f32[B,Hkv,S,D]", scale=0.08838834764831845):
    B = Q.shape[0]
    Hq = Q.shape[1]
    Hkv = K.shape[1]
    S = Q.shape[2]
    D = Q.shape[3]
    q = Q.reshape(B, Hkv, Hq // Hkv, S, D)
    kt = np.swapaxes(K, 2, 3)
    k = kt[:, :, None]
    v = V[:, :, None]
    s = (q @ k) * scale
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    z = np.sum(e, axis=-1, keepdims=True)
    p = e / z
    o = p @ v
    return o.reshape(B, Hq, S, D)
