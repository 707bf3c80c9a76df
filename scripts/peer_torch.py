#!/usr/bin/env python3
"""PyTorch peer of `npm run bench`: the same decoder-only transformer as OPD Playground's model (pre-LN blocks,
causal multi-head attention, tanh-GELU MLP, tied head), trained on random tokens on the CPU.

Prints one JSON line: training tokens per second (forward + backward + Adam step) for the config given on the
command line; `npm run bench -- --peer torch` runs it with the bench's own config and prints the ratio.
Needs PyTorch with a fast BLAS (Debian: `apt-get install -y python3-torch libopenblas0-pthread`, then run with
/usr/bin/python3; without OpenBLAS it falls back to the reference BLAS and runs ~10x slower).

  /usr/bin/python3 peer_torch.py --vocab 1024 --d 128 --layers 4 --heads 4 --seq 128 --batch 32 --steps 20
"""
import argparse, json, math, time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads = heads

    def forward(self, x):  # x: [B, T, d]
        B, T, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.view(B, T, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))  # [B, h, T, hs]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float('-inf')).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate='tanh'))


class TinyLM(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)

    def forward(self, idx):  # idx: [B, T] int64 -> logits [B, T, vocab] (tied head)
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.ln(x) @ self.tok.weight.T


def main():
    p = argparse.ArgumentParser()
    for k, v in dict(vocab=1024, d=128, layers=4, heads=4, seq=128, batch=32, steps=20, warmup=3, threads=2).items():
        p.add_argument('--' + k, type=int, default=v)
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    m = TinyLM(a.vocab, a.d, a.layers, a.heads, a.seq)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    x = torch.randint(0, a.vocab, (a.batch, a.seq))
    y = torch.randint(0, a.vocab, (a.batch, a.seq))
    def step():
        loss = F.cross_entropy(m(x).view(-1, a.vocab), y.view(-1))
        opt.zero_grad(); loss.backward(); opt.step()
    for _ in range(a.warmup):
        step()
    t = time.perf_counter()
    for _ in range(a.steps):
        step()
    dt = time.perf_counter() - t
    params = sum(p.numel() for p in m.parameters())
    print(json.dumps(dict(peer='pytorch-cpu', torch=torch.__version__, threads=a.threads, params=params,
                          config=vars(a), stepMs=1000 * dt / a.steps,
                          trainTokensPerSecond=a.batch * a.seq * a.steps / dt)))


if __name__ == '__main__':
    main()
