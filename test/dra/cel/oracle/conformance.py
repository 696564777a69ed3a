#!/usr/bin/env python3
"""Turns the cel-spec conformance tests (cel.dev/expr tests/simple/testdata/*.textproto) into oracle cases.

Only tests that fit DRA's environment are taken: no type_env (declared variables), bindings, container or
disabled checks; the expression is evaluated against one device. Each test becomes up to three cases:
  <id>-raw    the expression itself (a non-bool result is upstream's "must evaluate to bool" compile error,
              which also checks the output type the checker computes),
  <id>-eval   dyn(E) == dyn(E), which evaluates E and so compares runtime errors,
  <id>-value  (E) == <expected>, for a scalar expected value (int, uint, double, string, bool, null).
The answers come from the oracle (the real k8s.io/dynamic-resource-allocation/cel), not from the
textproto's expectations, so a test outside DRA's environment simply records upstream's error.

  conformance.py <testdata dir>   -> JSON lines on stdout (first line: the device table)
"""

import json
import math
import os
import re
import sys

DEVICE = {"driver": "dra.example.com", "attributes": {"model": {"string": "h100"}, "numa": {"int": 1}},
          "capacity": {"memory": "80Gi"}}


def unescape_proto(s):
    """Decodes a protobuf text-format string literal body (C-style escapes, octal bytes) to str."""
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63}
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = s[i + 1]
        if n in simple:
            out.append(simple[n])
            i += 2
        elif n in "xX":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        elif n in "01234567":
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        elif n == "u":
            out += chr(int(s[i + 2:i + 6], 16)).encode("utf-8")
            i += 6
        elif n == "U":
            out += chr(int(s[i + 2:i + 10], 16)).encode("utf-8")
            i += 10
        else:
            out += n.encode("utf-8")
            i += 2
    return out.decode("utf-8", errors="replace")


STRING = r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''


def parse_strings(text):
    """Concatenated string literals at the start of text (proto text allows "a" "b")."""
    parts = []
    pos = 0
    while True:
        m = re.match(r"\s*(" + STRING + ")", text[pos:])
        if not m:
            break
        parts.append(unescape_proto(m.group(1)[1:-1]))
        pos += m.end()
    return "".join(parts), pos


def blocks(text, keyword):
    """Yields the bodies of `keyword { ... }` and `keyword: { ... }` blocks (brace matching outside string
    literals)."""
    for m in re.finditer(r"\b" + keyword + r"\s*:?\s*\{", text):
        depth = 1
        i = m.end()
        while i < len(text) and depth:
            c = text[i]
            if c in "\"'":
                sm = re.match(STRING, text[i:])
                i += sm.end() if sm else 1
                continue
            if c == "#":
                while i < len(text) and text[i] != "\n":
                    i += 1
                continue
            depth += c == "{"
            depth -= c == "}"
            i += 1
        yield text[m.end():i - 1]


def cel_string(s):
    return json.dumps(s, ensure_ascii=True)


def expected_literal(body):
    m = re.search(r"\bvalue\s*:?\s*\{\s*(\w+)\s*:\s*(.*?)\s*\}", body, re.S)
    if not m or "value" not in body.split("{")[0] + m.group(0):
        return None
    kind, raw = m.group(1), m.group(2)
    if kind == "int64_value" and re.fullmatch(r"-?\d+", raw):
        return raw
    if kind == "uint64_value" and re.fullmatch(r"\d+", raw):
        return raw + "u"
    if kind == "double_value":
        try:
            v = float(raw)
        except ValueError:
            return None
        if math.isinf(v) or math.isnan(v):
            return None
        return repr(v)
    if kind == "string_value":
        s, _ = parse_strings(raw)
        return cel_string(s)
    if kind == "bool_value" and raw in ("true", "false"):
        return raw
    if kind == "null_value":
        return "null"
    return None


def main():
    root = sys.argv[1]
    print(json.dumps({"devices": {"gpu": DEVICE}}))
    for fname in sorted(os.listdir(root)):
        if not fname.endswith(".textproto"):
            continue
        text = open(os.path.join(root, fname), encoding="utf-8").read()
        base = fname[:-len(".textproto")]
        for section in blocks(text, "section"):
            sname = re.search(r'name:\s*"([^"]*)"', section).group(1)
            for test in blocks(section, "test"):
                if re.search(r"\b(type_env|bindings|container|disable_check|disable_macros|check_only)\b", test):
                    continue
                nm = re.search(r'name:\s*"([^"]*)"', test)
                em = re.search(r"\bexpr\s*:", test)
                if not nm or not em:
                    continue
                expr, _ = parse_strings(test[em.end():])
                cid = "conf-%s-%s-%s" % (base, sname, nm.group(1))
                print(json.dumps({"id": cid + "-raw", "expr": expr, "device": "gpu"}, ensure_ascii=False))
                print(json.dumps({"id": cid + "-eval", "expr": "dyn(%s) == dyn(%s)" % (expr, expr), "device": "gpu"},
                                 ensure_ascii=False))
                lit = expected_literal(test)
                if lit is not None:
                    print(json.dumps({"id": cid + "-value", "expr": "(%s) == %s" % (expr, lit), "device": "gpu"},
                                     ensure_ascii=False))


if __name__ == "__main__":
    main()
