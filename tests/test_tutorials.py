"""symgpt check on tutorials by other authors, scored against their answer keys.

Each tutorial (the public corpus in ``../shared/tutorials`` and ours in ``tests/tutorials``) has a spec, a
document in its author's notation and format, and a key whose exact values come from an independent
mpmath program (its ``oracle.py``, which never imports symgpt). ``score.py`` runs ``python -m symgpt.check``
on the document and compares every verdict with the key: planted errors flagged wrong with the key's
quantity, correct figures matched to theirs, figures called wrong that are not planted (false alarms).

The floors are what check reaches today; a change that loses a reading fails here.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "tutorials"
OURS = ROOT / "tests" / "tutorials"

# tutorial → (planted errors found with the key's quantity, correct figures of the key matched)
FLOORS = {
    "attention-slides": (6, 10), "bigram-notebook": (6, 10), "zh-blog": (5, 9),
    "latex-notes-zh": (6, 10), "plain-fr-sampling": (7, 10), "html-gpt-page": (7, 10), "ipynb-bigram-adam": (6, 10),
    "nbhtml-transformer-en": (4, 16), "pdf-lecture-bigram-zh": (6, 17),
    # rounds 30 and 31 of the held-out tutorials (helpers who did not read check's code), kept once scored; the
    # PDF's key gives the lines of pdftotext -layout, where check reports a PDF's figures
    "it-txt-bigram-comma": (8, 9), "ko-md-gpt2-heads": (6, 10), "nl-ipynb-gpt2-2layer": (8, 10),
    "pl-html-llama": (7, 10), "es-tex-gpt2-sampling": (8, 10), "fr-nbhtml-seed-sgd": (8, 10),
    "ja-txt-llama": (7, 10), "sv-rst-bigram-adamw": (8, 9), "tr-md-seed2layer-adamw": (8, 10),
    "en-pdf-seed-adamw": (8, 10),
    # round 32 (the keys' printed column gives a LaTeX figure as it reads, 0{,}25 as 0,25)
    "cs-rst-gpt2-heads": (8, 10), "de-md-llama": (7, 10), "pt-ipynb-bigram": (8, 9),
    "ru-txt-gpt2-sampling": (8, 10), "vi-html-2layer": (8, 10),
    # round 33
    "ar-txt-seed-topp": (7, 10), "el-tex-bigram-adamw": (5, 6), "en-pdf-llama-gqa": (5, 10),
    "id-md-gpt2-2layer": (8, 10), "uk-ipynb-bigram-sampling": (6, 8),
    # round 34 (English and Chinese: a hand-written HTML page on nanoGPT's block, a PyTorch notebook on a
    # mini-batch, a notebook exported to HTML with GPT-2's checkpoint names, a KaTeX blog on the seed's block with
    # T = 3, a LaTeX handout on Llama's block read as PDF)
    "en-html-nanogpt-2head": (8, 9), "en-ipynb-bigram-batch": (8, 10), "en-nbhtml-gpt2-gradcheck": (7, 10),
    "zh-md-seed-T3-sgd": (8, 10), "zh-pdf-llama": (7, 10),
    # round 35 (a Markdown post on a two-layer GPT-2 with two AdamW steps, a Chinese HTML page on a bigram's
    # mini-batch trained by AdamW, a LaTeX source on the seed's block with the loss over every position, plain-text
    # notes on nanoGPT's block with a gradient check in scientific notation, a Chinese notebook on a Llama block
    # with grouped-query attention and sampling)
    "en-md-gpt2-2layer-adamw": (8, 9), "en-tex-seed-allpos": (7, 8), "en-txt-nanogpt-gradcheck": (8, 9),
    "zh-html-bigram-batch-adamw": (7, 9), "zh-ipynb-llama-gqa-sampling": (8, 10),
    # round 36 (a Markdown walk-through of a bigram with Unicode math and three SGD steps, a Chinese plain-text
    # answer on the seed's block with sampling, a hand-written HTML page on a two-layer nanoGPT, a LaTeX handout on
    # the seed's block read as PDF, a PyTorch notebook on GPT-2 with one AdamW step)
    "en-md-bigram-walkthrough": (8, 10), "zh-txt-seed-T3-sampling": (7, 10), "en-html-nanogpt-2layer-2head": (8, 10),
    "en-pdf-seed-lecture": (8, 10), "en-ipynb-gpt2-adamw": (8, 10),
    # round 37 (a Japanese Markdown article on a bigram with two AdamW steps, a Spanish hand-written HTML page on
    # the seed's block with a step along the output head, a German notebook on a Llama block with top-p, English
    # plain-text notes on GPT-2's block with a gradient check, a French handout on a bigram's mini-batch read as PDF)
    "ja-md-bigram-adamw": (7, 9), "es-html-seed-T3-sgd": (7, 9), "de-ipynb-llama-topp": (8, 10),
    "en-txt-gpt2-heads-gradcheck": (8, 9), "fr-pdf-bigram-batch": (7, 9),
    # round 38 (a Korean Markdown post on the seed's block with an AdamW step, an English HTML lab report on a Llama
    # block with grouped-query attention and RoPE, a Brazilian plain-text handout on a bigram with a gradient check
    # and four SGD steps, a Chinese handout on a two-layer GPT-2 read as PDF, a notebook exported to HTML on nanoGPT
    # trained on a mini-batch with AdamW)
    "ko-md-seed-T3-adamw": (8, 9), "en-html-llama-gqa-rope": (8, 10), "pt-txt-bigram-gradcheck": (8, 10),
    "zh-pdf-gpt2-2layer": (8, 9), "en-nbhtml-nanogpt-adamw-batch": (8, 9),
    # round 39 (a German hand-written HTML course page on a bigram with three AdamW steps, an English Markdown post
    # with NumPy prints and a full manual backward pass through the seed's block, a French handout on the seed's
    # block with T = 4 read as PDF, a Japanese notebook on a Llama block with two SGD steps, a Russian Markdown
    # article on GPT-2's block with two heads, a temperature and top-k)
    "de-html-bigram-adamw-3steps": (8, 9), "en-md-seed-backprop-numpy": (8, 10), "fr-pdf-seed-T4": (8, 10),
    "ja-ipynb-llama-sgd": (8, 10), "ru-md-gpt2-heads-topk": (8, 10),
    # round 40 (a Spanish notebook on nanoGPT's block with a widened MLP and an AdamW step, a Chinese Markdown post on
    # a bigram's mini-batch of three with two SGD steps, an English plain-text forum answer on a Llama block with
    # grouped-query attention and sampling, a Korean HTML page on the seed's block with two layers, an Italian
    # handout on a two-layer GPT-2 with a gradient check read as PDF)
    "es-ipynb-nanogpt-adamw": (8, 10), "zh-md-bigram-batch-sgd": (8, 10), "en-txt-llama-gqa-sampling": (8, 10),
    "ko-html-seed-2layer-sgd": (8, 10), "it-pdf-gpt2-gradcheck": (8, 10),
    # round 41 (a German plain-text lab protocol on the seed's block with a backward pass and an AdamW step, an
    # English Distill-style page on a two-layer Llama block with an SGD step, a French Markdown post on GPT-2's block
    # with T = 4 and top-p, a Polish notebook on a bigram's mini-batch with two AdamW steps, a Chinese handout on
    # nanoGPT's block with a gradient check and an AdamW step read as PDF); scored first before reading them: 29/40,
    # 19 false alarms, 45/50
    "de-txt-seed-backprop-adamw": (7, 10), "en-html-llama-2layer-sgd": (7, 8), "fr-md-gpt2-T4-topp": (7, 9),
    "pl-ipynb-bigram-batch-adamw": (7, 10), "zh-pdf-nanogpt-gradcheck-adamw": (5, 9),
    # round 42 (an English notebook on GPT-2's block with two heads in PyTorch's names and an SGD step, a Spanish
    # notebook exported to HTML on nanoGPT's block with a temperature and top-k, a Japanese Markdown article on a
    # bigram with a gradient check and three SGD steps, a Portuguese reStructuredText page on the seed's block with
    # sampling, a Russian lecture note on a Llama block with grouped-query attention and an AdamW step read as PDF);
    # scored first on round 41's readings: 33/40, 1 false alarm, 48/50
    "en-ipynb-gpt2-2head-torch": (8, 10), "es-html-nanogpt-T4-topk": (8, 10), "ja-md-bigram-3sgd-gradcheck": (8, 10),
    "pt-rst-seed-T3-sampling": (8, 10), "ru-pdf-llama-gqa-adamw": (8, 10),
    # round 43 (a French notebook on the seed's block with two heads and an SGD step, a German Markdown post on a
    # Llama block with greedy, temperature, top-k and top-p tables, a Chinese plain-text note on a bigram with three
    # AdamW steps in box-drawn tables, an English handout on the seed's block with a backward pass and a gradient
    # check read as PDF, a Korean HTML page on GPT-2's block with an AdamW step of the final norm); scored first on
    # round 42's readings: 31/40, 17 false alarms, 43/50
    "fr-ipynb-seed-2head-sgd": (8, 10), "de-md-llama-sampling": (6, 8), "zh-txt-bigram-adamw-3steps": (8, 9),
    "en-pdf-seed-backprop-gradcheck": (6, 9), "ko-html-gpt2-adamw": (7, 9),
    # round 44 (a Vietnamese Markdown post on the seed's block at T = 4 with a backward pass and an SGD step, an
    # English plain-text post on nanoGPT's block with two layers and an AdamW step, a Spanish class note on a bigram
    # with a gradient check and two SGD steps read as PDF, a Chinese notebook on a Llama block with top-p and
    # temperature, a French HTML page on GPT-2's block with a backward pass and an SGD step); scored first on round
    # 43's readings: 23/40, 15 false alarms, 38/50
    "vi-md-seed-T4-backprop": (7, 10), "en-txt-nanogpt-2layer-adamw": (5, 10), "es-pdf-bigram-gradcheck-2sgd": (6, 6),
    "zh-ipynb-llama-topp": (8, 10), "fr-html-gpt2-backprop-sgd": (8, 10),
    # round 45 (a Hindi Markdown tutorial on a bigram with three SGD steps, a column per step; a German lecture note
    # on nanoGPT's block with a backward pass to the attention's output projection read as PDF; an English HTML page
    # on a Llama block with grouped-query attention and an AdamW step in lists; a Japanese notebook on the seed's
    # block with two layers and a gradient check; a Portuguese plain-text post on GPT-2's block with two heads and
    # sampling); scored first on round 44's readings: 36/40, 8 false alarms, 47/50
    "hi-md-bigram-3sgd": (8, 9), "de-pdf-nanogpt-backprop-sgd": (7, 10), "en-html-llama-gqa-adamw": (8, 10),
    "ja-ipynb-seed-2layer-gradcheck": (7, 9), "pt-txt-gpt2-2head-sampling": (8, 10),
    # round 47 (an English notebook on a bigram's mini-batch of three with two AdamW steps; a Spanish plain-text post
    # on a Llama block with grouped-query attention and an SGD step on W_out alone; an Italian HTML page on GPT-2's
    # block with two heads and a backward pass to the value path; a Polish Markdown post on nanoGPT's block with
    # temperature, top-k and top-p; a Chinese lecture note on the seed's block with a gradient check read as PDF);
    # scored first on round 45's readings: 32/40, 20 false alarms (16 on the notebook), 47/50
    "en-ipynb-bigram-batch3-adamw": (8, 10), "es-txt-llama-gqa-sgd": (8, 10), "it-html-gpt2-2head-sgd": (8, 10),
    "pl-md-nanogpt-temp-topk": (7, 10), "zh-pdf-seed-T3-gradcheck": (7, 9),
    # round 48 (a German plain-text post on the seed's block with sampling; an English LaTeX source on a bigram's
    # mini-batch of two with two SGD steps; a French notebook on a two-layer nanoGPT with a gradient check; a
    # Japanese Markdown post on GPT-2's block with two AdamW steps in tables; a Korean HTML page on a Llama block with
    # a backward pass and a step on W_out's column); scored first on round 47's readings: 29/40, 3 false alarms,
    # 46/50
    "de-txt-seed-T3-sampling": (8, 10), "en-tex-bigram-batch2-sgd": (6, 9), "ja-md-gpt2-2head-adamw2": (8, 10),
    "fr-ipynb-nanogpt-2layer-gradcheck": (7, 10), "ko-html-llama-backprop-sgd": (7, 9),
    # round 49 (an English Markdown post on a two-layer GPT-2 with a backward pass into block 2's MLP, a Spanish
    # notebook on the seed's block at T = 4 with an SGD step and a gradient check, an Italian lecture note on a
    # two-head nanoGPT with an AdamW step read as PDF, a Russian HTML page on a bigram with three AdamW steps, a
    # Chinese plain-text post on a Llama block with grouped-query attention and sampling); scored first on the
    # readings of rounds 47 and 48 and not worked on: 28/40, 1 false alarm, 47/50
    # (worked on in the next session: 38/40, 0, 47/50)
    "en-md-gpt2-2layer-backprop": (8, 10), "es-ipynb-seed-T4-sgd-gradcheck": (8, 9), "zh-txt-llama-gqa-topp": (8, 10),
    "it-pdf-nanogpt-2head-adamw": (7, 10), "ru-html-bigram-adamw3": (8, 9),
    # round 50 (a German exercise sheet on a bigram's mini-batch of two and two AdamW steps read as PDF, a Portuguese
    # Markdown post on a two-head GPT-2 with a backward pass into head 2 and an SGD step on W_Q, English plain-text
    # lecture notes on the seed's block with sampling and a gradient check, a Japanese notebook on a Llama block
    # with grouped-query attention and an AdamW step, a Vietnamese HTML page on a two-layer nanoGPT with an SGD
    # step); scored first once round 49's readings were in: 33/40, 6 false alarms, 48/50; now 38/40, 0, 49/50
    "de-pdf-bigram-batch2-adamw2": (7, 10), "pt-md-gpt2-2head-backprop-sgd": (7, 9),
    "en-txt-seed-T3-sampling-gradcheck": (8, 10), "ja-ipynb-llama-gqa-adamw": (8, 10),
    "vi-html-nanogpt-2layer-sgd": (8, 10),
    # round 51 (a Greek HTML page on a bigram with temperature, top-k and top-p tables, a gradient check and an SGD
    # step; Hindi (in Latin script) LaTeX notes on a two-layer GPT-2 read as PDF; an Indonesian notebook on the
    # seed's block with two AdamW steps; a Dutch Markdown post on a Llama block with a backward pass and an SGD
    # step; Turkish plain-text notes on a two-head nanoGPT with LayerNorm gradients); scored first once round 50's
    # readings were in: 32/40, 6 false alarms, 49/50; now 39/40, 0, 50/50
    "el-html-bigram-sampling-gradcheck": (8, 10), "hi-pdf-gpt2-2layer-sgd": (7, 10),
    "id-ipynb-seed-T3-adamw2": (8, 10), "nl-md-llama-backprop-sgd": (8, 10), "tr-txt-nanogpt-2head-lngrad": (8, 10),
    # round 52 (Arabic plain-text notes on a bigram's mini-batch of three and two SGD steps; English (no Japanese
    # font) LaTeX notes on a two-head nanoGPT with a gradient check and an SGD step, read as PDF; a Korean Markdown
    # post on the seed's block twice; a Polish HTML page on a Llama block with grouped-query attention and sampling;
    # a Swedish notebook on a two-head GPT-2 with a backward pass and an AdamW step); scored first once round 51's
    # readings were in: 25/40, 0 false alarms, 45/50; now 33/40, 0, 49/50
    "ar-txt-bigram-batch3-sgd2": (6, 10), "ja-pdf-nanogpt-gradcheck-sgd": (8, 10), "ko-md-seed-2layer-sgd": (8, 10),
    "pl-html-llama-gqa-sampling": (7, 10), "sv-ipynb-gpt2-backprop-adamw": (8, 9),
    # round 53 (a Danish HTML page on a two-block GPT-2 with a gradient check and an SGD step; Finnish plain-text
    # notes on the seed's block with two heads and two AdamW steps, decimal commas; a Hebrew Markdown post on a
    # two-head nanoGPT with sampling and gradients; Romanian LaTeX notes on a Llama block's backward pass and an
    # SGD step, read as PDF; a Thai notebook on a bigram with sampling and an SGD step); scored first with round
    # 52's readings in: 32/40, 1 false alarm, 47/50; now 40/40, 0, 49/50
    "da-html-gpt2-2layer-gradcheck": (8, 10), "fi-txt-seed-2head-adamw": (8, 10),
    "he-md-nanogpt-sampling-grads": (8, 10), "ro-pdf-llama-backprop-sgd": (8, 9),
    "th-ipynb-bigram-sampling-sgd": (8, 10),
    # round 54 (a German notebook on a two-block GPT-2 with an AdamW step; English LaTeX notes on a nanoGPT block
    # trained on a batch of two, read as PDF; a Persian Markdown post on the seed's block with sampling; Italian
    # reStructuredText notes on a bigram's two AdamW steps; a Chinese HTML page on a two-block Llama with an SGD
    # step); scored first once round 53's readings were in: 31/40, 3 false alarms, 47/50; now 33/40, 0, 47/50
    "de-ipynb-gpt2-2layer-adamw": (6, 10), "en-pdf-nanogpt-batch2-sgd": (6, 9), "fa-md-seed-sampling": (8, 10),
    "it-rst-bigram-adamw2": (8, 9), "zh-html-llama-2layer-sgd": (6, 10),
    # round 55 (a Bengali HTML page on the seed's block with its own weights, backpropagation and an SGD step;
    # Catalan LaTeX class notes on a bigram's gradient check and two AdamW steps, read as PDF; a Hungarian
    # Markdown post on a two-head GPT-2 with an AdamW step; Malay plain-text notes on a two-block nanoGPT's
    # gradient check; a Norwegian notebook on a Llama block with grouped-query attention and sampling); scored
    # first once round 54's readings were in: 31/40, 2 false alarms, 45/50; now 38/40, 0, 48/50
    "bn-html-seed-backprop-sgd": (8, 9), "ca-pdf-bigram-adamw2": (8, 10), "hu-md-gpt2-2head-adamw": (8, 10),
    "ms-txt-nanogpt-2layer-gradcheck": (8, 10), "no-ipynb-llama-gqa-sampling": (6, 9),
    # round 56 (an English notebook on a two-block Llama's gradient check; Spanish LaTeX notes on a two-head GPT-2
    # with an AdamW step, read as PDF; a Japanese HTML page on a nanoGPT block trained on a batch of two with
    # AdamW; Russian plain-text notes on the seed's block at T = 4 with sampling; a Swahili Markdown post on a
    # bigram's three SGD steps); scored first with most of round 55's readings in: 26/40, 8 false alarms (6 from
    # a reading of that round, W_fc read as the checkpoint stores it, since fixed), 45/50; now 32/40, 0, 45/50
    # (the Russian key writes a token by its id inside a function, softmax_T(2, 3), which the scorer does not
    # match to softmax_T(2, пить): two right quantities and two correct figures are counted as misses)
    "en-ipynb-llama-2layer-gradcheck": (7, 9), "es-pdf-gpt2-2head-adamw": (7, 9),
    "ja-html-nanogpt-batch2-adamw": (8, 9), "ru-txt-seed-T4-topk-topp": (5, 8), "sw-md-bigram-sgd3": (8, 10),
    # round 57 (a Finnish Markdown post on the seed's block at T = 3 with an AdamW step; Portuguese LaTeX notes on
    # a GQA Llama with an SGD step, read as PDF; a Korean notebook on a bigram's batch of three pairs with a
    # gradient check of the batch's mean loss; German plain-text notes on a two-block GPT-2 with sampling; a Hindi
    # HTML page on a two-head nanoGPT's backprop); scored first: 31/40, 8 false alarms (7 of them the notebook's
    # check of the mean loss, which symgpt's gradcheck took as the first pair's), 45/50; now 38/40, 1, 50/50
    "fi-md-seed-T3-adamw": (7, 10), "pt-pdf-llama-gqa-sgd": (7, 10), "ko-ipynb-bigram-batch3-gradcheck": (8, 10),
    "de-txt-gpt2-2layer-sampling": (8, 10), "hi-html-nanogpt-2head-backprop": (8, 10),
    # round 58 (a Turkish HTML page on a two-block Llama with two SGD steps; a Polish notebook on a two-head GPT-2's
    # sampling; Danish LaTeX notes on a bigram's batch of two with two AdamW steps, read as PDF; a Vietnamese
    # Markdown post on backprop into a nanoGPT's attention; Hebrew plain-text notes on the seed's block with a
    # gradient check and an SGD step); scored first with round 57's readings in: 25/40, 5 false alarms, 47/50;
    # now 28/40, 0, 49/50 (the Danish notes' AdamW table of step 2, a row per moment and a column per entry, is
    # still unread)
    "tr-html-llama-2layer-sgd2": (7, 10), "pl-ipynb-gpt2-sampling": (5, 10), "da-pdf-bigram-batch2-adamw2": (3, 10),
    "vi-md-nanogpt-2head-attngrad": (7, 10), "he-txt-seed-gradcheck-sgd": (7, 10),
    # round 59 (Norwegian Markdown on a two-block GPT-2's layer-norm gradients and an SGD step; a Romanian notebook on
    # a GQA Llama's AdamW step; a Thai HTML page on a bigram's three SGD steps, then sampling from the trained model;
    # an English LaTeX handout on the seed's block with two heads and an AdamW step, read as PDF; Persian plain-text
    # notes on a nanoGPT's gradient check and SGD step); scored first: 34/40, 3 false alarms (all the Thai page's
    # steps, headed 'ขั้นที่ 3'), 45/50; now 39/40, 0, 47/50 (the Thai share at T = 0.7 after step 3 is found as
    # sgd[3].softmax_T, which the scorer does not equate with its key's expression of exps)
    "no-md-gpt2-2layer-lngrad-sgd": (8, 10), "ro-ipynb-llama-gqa-adamw": (8, 10),
    "th-html-bigram-sgd3-sampling": (7, 8), "en-pdf-seed-2head-adamw": (8, 9), "fa-txt-nanogpt-gradcheck-sgd": (8, 10),
    # round 60 (a Hungarian HTML page on a two-block Llama's backprop and SGD step; a Japanese Markdown post on a
    # bigram's batch of three, two SGD steps and top-p from the trained model; Swahili plain-text notes on a two-head
    # GPT-2's sampling; Catalan LaTeX notes on the seed's block at T = 4 with a gradient check and two AdamW steps,
    # read as PDF; a Malay notebook on a two-block nanoGPT's attention gradients and an AdamW step); scored first
    # with round 59's readings in: 26/40, 4 false alarms, 46/50; then 27/40, 0, 46/50; with round 61's readings
    # (the Japanese batch's tables of G^W and G^E, a Malay block's superscript) 32/40, 0, 48/50
    "hu-html-llama-2layer-backprop-sgd": (8, 10), "ja-md-bigram-batch3-sgd2-topp": (5, 9),
    "sw-txt-gpt2-2head-sampling": (7, 10), "ca-pdf-seed-T4-gradcheck-adamw2": (6, 9),
    "ms-ipynb-nanogpt-2layer-attn-adamw": (6, 10),
    # round 61 (a Korean reStructuredText post on a two-block Llama's sampling; Dutch plain-text notes on a two-block
    # GPT-2's AdamW step; a Brazilian Portuguese HTML page on a two-head nanoGPT's backprop and SGD step; a Russian
    # LaTeX handout on the seed's block at T = 3 with a gradient check, read as PDF; a Turkish notebook on a bigram's
    # batch of two and two AdamW steps); scored first with round 60's readings in: 34/40, 14 false alarms, 47/50;
    # now 40/40, 0, 48/50
    "ko-rst-llama-2layer-sampling": (8, 10), "nl-txt-gpt2-2layer-adamw": (8, 10),
    "pt-html-nanogpt-backprop-sgd": (8, 10), "ru-pdf-seed-T3-gradcheck-sgd": (8, 9),
    "tr-ipynb-bigram-batch2-adamw2": (8, 9),
    # round 62 (a Vietnamese notebook on a grouped-query Llama's backprop and SGD step; an Indonesian HTML page on the
    # seed's block at T = 4 and two AdamW steps; a Polish LaTeX source on a two-block nanoGPT's sampling; French
    # plain-text notes on a bigram's batch of three, a gradient check and two SGD steps; a Hebrew Markdown post on a
    # two-head GPT-2's backprop and AdamW step); scored first with round 61's readings in: 32/40, 7 false alarms,
    # 46/50; now 36/40, 0, 47/50 (the French notes' example columns pi_1 … pi_3 and e_2 = (…) of one example are
    # still unread)
    "vi-ipynb-llama-gqa-backprop-sgd": (8, 9), "id-html-seed-T4-adamw2": (8, 10),
    "pl-tex-nanogpt-2layer-sampling": (7, 10), "fr-txt-bigram-batch3-gradcheck-sgd2": (5, 10),
    "he-md-gpt2-2head-backprop-adamw": (8, 8),
}
MAX_FALSE_ALARMS = 1      # per tutorial: the target on tutorials we have not seen
FALSE_ALARMS = {          # … but where its key and our policy differ, said here
    # three terms of an expansion, '0,2×0,1885' ⏎ '= 0,03770 + …', are their printed factors' exact products but
    # not the exact products' roundings (0,03771): check calls them carried roundings, as verify does on the
    # source document ('1.541×0.3 + … = 0.4623 + …'); the key counts them correct
    "it-txt-bigram-comma": 3,
    # not read yet, each a false alarm today: a head's superscript that pdftotext sets on the line above
    # (o^{(2)}_2), a row of p whose label holds '=' (p_v = e^{ℓv}/Z) read one column off, a head's share said
    # in the sentence after its head ('… while head 2 looks back at sun with 64.4%')
    "en-pdf-llama-gqa": 3,
    # not read yet: 'v̂ = v / 0.002997001 = 0.108540' at step 3 with its v in the table below (no lead-in on its
    # line), and a remark that quotes step 3's m (0.008296) beside its gradient, read as the gradient
    "zh-txt-bigram-adamw-3steps": 2,
}


def _scorer():
    spec = importlib.util.spec_from_file_location("tutorial_score", SHARED / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _folders():
    out = []
    for base in (SHARED, OURS):
        if base.is_dir():
            out += [p for p in sorted(base.iterdir()) if (p / "KEY.md").is_file() and (p / "SPEC.toml").is_file()]
    return out


@pytest.mark.skipif(not (SHARED / "score.py").is_file(), reason="needs ../shared/tutorials/score.py")
@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_check_reads_the_tutorial_as_its_key_says(folder, monkeypatch):
    scorer = _scorer()
    monkeypatch.setattr(scorer.sys, "executable", sys.executable)
    res = scorer.score(folder, timeout=600)
    assert res["error"] is None, res["error"]
    shown = "\n".join(f"{kind}: line {e.get('line')} {e.get('printed')} key {e.get('quantity')} → {what}"
                      for kind, e, _, what in res["details"])
    right, correct = FLOORS.get(folder.name, (0, 0))
    assert res["right"] >= right, shown
    assert res["correct_ok"] >= correct, shown
    assert res["false_alarms"] <= FALSE_ALARMS.get(folder.name, MAX_FALSE_ALARMS), shown
