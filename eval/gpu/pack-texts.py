"""Packs what eval/gpu/embed-texts.py needs on a lent GPU machine (no network, 64 MiB carried)
into one folder: the sentence-transformers model with its weights in float16 (as Ollama imports
them: F16), and the texts an `embedding-relay.ts record` run wrote down, each cut after the
tokens the model reads (512 with [CLS] and [SEP], as Ollama and the model's positions allow) and
compressed. Run here, with numpy, tokenizers and safetensors installed:

  python eval/gpu/pack-texts.py <texts.jsonl> <model dir> <out dir>
"""
import json
import lzma
import re
import shutil
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer

MAX_TOKENS = 512

texts_file, model_dir, out_dir = (Path(arg) for arg in sys.argv[1:4])
model_out = out_dir / 'model'
shutil.rmtree(out_dir, ignore_errors=True)
shutil.copytree(model_dir, model_out, ignore=shutil.ignore_patterns('model.safetensors', 'README.md'))
weights = load_file(str(model_dir / 'model.safetensors'))
save_file({name: array.astype(np.float16) for name, array in weights.items()}, str(model_out / 'model.safetensors'))

tokenizer = Tokenizer.from_file(str(model_dir / 'tokenizer.json'))
tokenizer.no_truncation()
tokenizer.no_padding()
# split('\n'), not splitlines(): a text may hold U+2028 or a form feed, which JSON leaves as they are.
# A lone surrogate (JSON allows "\ud800") becomes U+FFFD, as a server decoding the request sees it.
texts = [re.sub('[\ud800-\udfff]', '\ufffd', json.loads(line)) for line in texts_file.read_text('utf8').split('\n') if line]
cut = 0
with lzma.open(out_dir / 'texts.jsonl.xz', 'wt', encoding='utf8', preset=9) as out:
    for start in range(0, len(texts), 4096):
        batch = texts[start:start + 4096]
        for text, encoding in zip(batch, tokenizer.encode_batch(batch, add_special_tokens=False)):
            if len(encoding.offsets) > MAX_TOKENS - 2:
                text = text[:encoding.offsets[MAX_TOKENS - 3][1]]
                cut += 1
            out.write(json.dumps(text) + '\n')
print(f'{len(texts)} texts, {cut} cut to {MAX_TOKENS} tokens; {out_dir}')
