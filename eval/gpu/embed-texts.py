"""Embeds the texts that eval/gpu/pack-texts.py packed, on the GPU, with the model it packed
(sentence-transformers: mean pooling and normalisation, as the model's modules.json says), and
writes what `embedding-relay.ts replay --vectors` reads: `vectors-<k>.i8` (int8 rows, in the
texts' order, split to fit the device's 16 MiB files) and `scales.f32` (each row's scale).

  python3 eval/gpu/embed-texts.py <packed dir> <out dir>
"""
import json
import lzma
import sys
import time
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import SentenceTransformer

packed, out = Path(sys.argv[1]), Path(sys.argv[2])
texts = [json.loads(line) for line in lzma.open(packed / 'texts.jsonl.xz', 'rt', encoding='utf8')]
model = SentenceTransformer(str(packed / 'model'), device='cuda')
model.max_seq_length = 512
started = time.time()
with torch.inference_mode():
    vectors = model.encode(texts, batch_size=512, normalize_embeddings=True, convert_to_numpy=True)
seconds = time.time() - started
scales = np.abs(vectors).max(axis=1) / 127
quantised = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
error = np.abs((quantised * scales[:, None] * vectors).sum(axis=1) - 1).max()
out.mkdir(parents=True, exist_ok=True)
scales.astype(np.float32).tofile(out / 'scales.f32')
rows_per_file = (15 << 20) // quantised.shape[1]
for k, start in enumerate(range(0, len(quantised), rows_per_file)):
    quantised[start:start + rows_per_file].tofile(out / f'vectors-{k}.i8')
print(json.dumps({'texts': len(texts), 'dimension': int(vectors.shape[1]), 'seconds': round(seconds, 1),
                  'texts_per_second': round(len(texts) / seconds), 'max_cosine_loss_int8': float(error),
                  'device': torch.cuda.get_device_name(0)}))
