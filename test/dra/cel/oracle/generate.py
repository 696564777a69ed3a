#!/usr/bin/env python3
"""Generates the differential-oracle corpus for ks::cel: (expression, device) cases as JSON lines on stdout.

Deterministic for a given --seed. The first line is the device table {"devices": {name: device}}, then one
case per line: {"id", "expr", "device": name}, where a device is {"driver", "allowMultipleAllocations"?, "attributes": {name: {"int"|"bool"|"string"|"version": v} or {}},
"capacity": {name: quantity string}}. The oracle (main.go.in) adds upstream's answer to each line.

Families (the id prefix says which): hand-written expressions over the environment's features (hand-*),
typed random expression trees (rand-*), syntax mutations of valid expressions (syntax-*), and each
expression evaluated against several devices (devices differ in which keys exist and in the value types).
Expressions whose result depends on Go's random map iteration order are avoided; the oracle flags any that
slip through ("nondeterministic") and the C++ test skips those.
"""

import argparse
import datetime
import json
import random
import re

D = "dra.example.com"
O = "other.example.com"

# ---------------------------------------------------------------------------------------------- devices


def dev(driver=D, attrs=None, cap=None, multi=None):
    d = {"driver": driver}
    if multi is not None:
        d["allowMultipleAllocations"] = multi
    if attrs:
        d["attributes"] = attrs
    if cap:
        d["capacity"] = cap
    return d


def I(v):
    return {"int": v}


def B(v):
    return {"bool": v}


def S(v):
    return {"string": v}


def V(v):
    return {"version": v}


GPU = dev(
    attrs={
        "model": S("h100-sxm"),
        "numa": I(1),
        "healthy": B(True),
        "driverVersion": V("1.2.3"),
        "index": I(0),
        "family": S("Hopper"),
        "memGiB": I(80),
        "empty": S(""),
        "uuid": S("GPU-5f1c0e2a-9b3d"),
        O + "/zone": S("zone-a"),
        O + "/rack": I(7),
        O + "/enabled": B(False),
        O + "/fw": V("2.0.0-rc.1+build.5"),
    },
    cap={"memory": "80Gi", "cores": "132", "power": "700", O + "/bandwidth": "900G", "fraction": "500m"},
    multi=True,
)
GPU2 = dev(
    attrs={
        "model": S("A100"),
        "numa": I(-3),
        "healthy": B(False),
        "driverVersion": V("0.9.0-alpha"),
        "index": I(9223372036854775807),
        "family": S("Ampère ✓"),
        "memGiB": I(-9223372036854775808),
        "empty": S("x"),
        O + "/zone": I(3),
        O + "/rack": S("7"),
    },
    cap={"memory": "40960Mi", "cores": "0", "fraction": "1.5", "big": "1E"},
    multi=False,
)
EMPTY = dev(driver="")
NOATTR = dev(driver="gpu.example.com", cap={"memory": "1Ki"})
OTHERDRIVER = dev(driver=O, attrs={"model": S("x"), "numa": B(True), "rack": I(2), D + "/model": S("h100")})
BADVERSION = dev(attrs={"model": S("m"), "driverVersion": V("1.2")})
NOVALUE = dev(attrs={"model": S("m"), "broken": {}})
TYPESWAP = dev(
    attrs={"model": I(5), "numa": S("1"), "healthy": S("true"), "driverVersion": S("1.2.3"), "memGiB": B(True)},
    cap={"memory": "0", "cores": "-2"},
)

DEVICE_TABLE = {"gpu": GPU, "gpu2": GPU2, "empty": EMPTY, "noattr": NOATTR, "otherdriver": OTHERDRIVER,
                "badversion": BADVERSION, "novalue": NOVALUE, "typeswap": TYPESWAP}
GPU, GPU2, EMPTY, NOATTR, OTHERDRIVER, BADVERSION, NOVALUE, TYPESWAP = DEVICE_TABLE.keys()
DEVICES = list(DEVICE_TABLE.keys())
MAIN_DEVICES = [GPU, GPU2, EMPTY, OTHERDRIVER, TYPESWAP]

A = 'device.attributes["%s"]' % D
AO = 'device.attributes["%s"]' % O
C = 'device.capacity["%s"]' % D
CO = 'device.capacity["%s"]' % O

# ------------------------------------------------------------------------------------------ hand-written

HAND = r"""
true
false
null
1
1u
1.5
"s"
b"s"
[1]
{}
device
device.driver
device.attributes
device.driver == "dra.example.com"
device.driver != ""
device.driver.startsWith("dra")
device.driver.endsWith(".com")
device.driver.contains("example")
device.driver.matches("^dra\\.")
device.driver.size() > 3
size(device.driver) == 15
device.allowMultipleAllocations
!device.allowMultipleAllocations
device.allowMultipleAllocations == true
device.nosuchfield
device.attributes.foo
has(device.attributes.foo)
has(device.driver)
has(device.allowMultipleAllocations)
has(device.attributes)
has(device.capacity.x)
has(@A.model)
has(@A.nosuch)
has(@AO.zone)
has(device.attributes["dra.example.com"].model)
"dra.example.com" in device.attributes
"other.example.com" in device.attributes
"nosuch.example.com" in device.attributes
"dra.example.com" in device.capacity
"model" in @A
"nosuch" in @A
@A.model
@A.model == "h100-sxm"
@A.model != "h100-sxm"
@A.model == 1
@A.model > "a"
@A.model < 1
@A.model + "x" == "h100-sxmx"
@A.model.startsWith("h100")
@A.model.lowerAscii() == "h100-sxm"
@A.model.upperAscii() == "H100-SXM"
@A.model.matches("^h100.*")
@A.model.matches("[")
@A.model.matches(@A.family)
@A.model.find("[0-9]+") == "100"
@A.model.findAll("[a-z]") == ["h", "s", "x", "m"]
@A.model.findAll("[a-z]", 2) == ["h", "s"]
@A.model.findAll("[a-z]", 0) == []
@A.model.findAll("[a-z]", -1).size() == 4
@A.model.find("(") == ""
@A.model.size() == 8
@A.model.charAt(0) == "h"
@A.model.charAt(8) == ""
@A.model.charAt(9) == ""
@A.model.charAt(-1) == ""
@A.model.indexOf("1") == 1
@A.model.indexOf("") == 0
@A.model.indexOf("z") == -1
@A.model.indexOf("0", 3) == 3
@A.model.indexOf("0", 20) == -1
@A.model.indexOf("0", -1) == -1
@A.model.lastIndexOf("0") == 3
@A.model.lastIndexOf("0", 2) == 2
@A.model.lastIndexOf("") == 8
@A.model.replace("-", "_") == "h100_sxm"
@A.model.replace("0", "o", 1) == "h1o0-sxm"
@A.model.replace("", "|") == "|h|1|0|0|-|s|x|m|"
@A.model.split("-") == ["h100", "sxm"]
@A.model.split("-", 1) == ["h100-sxm"]
@A.model.split("-", 0) == []
@A.model.split("") == ["h", "1", "0", "0", "-", "s", "x", "m"]
@A.model.substring(1) == "100-sxm"
@A.model.substring(1, 4) == "100"
@A.model.substring(4, 1) == ""
@A.model.substring(9) == ""
@A.model.substring(-1) == ""
@A.model.trim() == @A.model
"  a b  ".trim() == "a b"
["a", "b"].join() == "ab"
["a", "b"].join("-") == "a-b"
[].join("-") == ""
@A.family.lowerAscii() == "hopper"
@A.family.size()
@A.family.charAt(2) == "r"
@A.numa
@A.numa == 1
@A.numa == 1u
@A.numa == 1.0
@A.numa < 1.5
@A.numa > 0u
@A.numa >= 1
@A.numa <= -1
@A.numa + 1 == 2
@A.numa - 2 < 0
@A.numa * 3 == 3
@A.numa / 0 == 0
@A.numa % 0 == 0
@A.numa / 2 == 0
@A.numa % 2 == 1
-@A.numa == -1
@A.numa == "1"
@A.numa in [1, 2, 3]
@A.numa in [1u, 2u]
@A.numa in [1.0]
@A.numa in {1: "a"}
@A.numa + 1u == 2
@A.numa + 1.0 == 2.0
int(@A.numa) == 1
uint(@A.numa) == 1u
double(@A.numa) == 1.0
string(@A.numa) == "1"
@A.index + 1 > 0
@A.index - 1 < 0
@A.index * 2 > 0
@A.index * -1 < 0
-@A.index < 0
@A.memGiB - 1 < 0
-@A.memGiB > 0
@A.memGiB / -1 > 0
@A.memGiB % -1 == 0
@A.memGiB * -1 > 0
uint(@A.memGiB) > 0u
uint(@A.numa) > 0u
double(@A.index) > 0.0
9223372036854775807 + 1 > 0
-9223372036854775808 - 1 < 0
-9223372036854775808 / -1 < 0
-9223372036854775808 % -1 == 0
18446744073709551615u + 1u > 0u
0u - 1u > 0u
1 / 0 == 0
1 % 0 == 0
1u / 0u == 0u
1.0 / 0.0 > 0.0
-1.0 / 0.0 < 0.0
0.0 / 0.0 == 0.0 / 0.0
int(1e20) > 0
int(-1e20) < 0
int(1.9) == 1
int(-1.9) == -1
uint(-1) > 0u
uint(1.5) == 1u
uint(-0.5) == 0u
int("12") == 12
int("1x") == 0
int("9223372036854775808") > 0
uint("-1") == 0u
double("1e3") == 1000.0
double("x") == 0.0
double("inf") > 0.0
string(1.5) == "1.5"
string(1e20) == "1e+20"
string(0.1) == "0.1"
string(-0.0) == "-0"
string(123456789.0) == "1.23456789e+08"
string(1u) == "1"
string(true) == "true"
string(b"abc") == "abc"
string(b"\xff") == "x"
bytes("abc") == b"abc"
bool("true")
bool("TRUE")
bool("yes")
bool("t")
bool("0")
dyn(1) == 1.0
dyn(1) == dyn(1u)
dyn(1) == "1"
dyn("a") < dyn(1)
dyn(1) < dyn(2.5)
dyn(2u) > dyn(-1)
dyn(-1) < dyn(18446744073709551615u)
dyn(1.5) > dyn(1u)
type(1) == int
type(1u) == uint
type(1.0) == double
type("a") == string
type(b"a") == bytes
type(true) == bool
type(null) == null_type
type([]) == list
type({}) == map
type(int) == type
type(@A.numa) == int
type(@A.model) == string
type(@A.driverVersion) == int
type(@A) == map
type(device) == map
type(1) == type(2)
type(1) != type("a")
int == int
list == map
@A.healthy
!@A.healthy
@A.healthy == true
@A.healthy && @A.numa == 1
@A.healthy || @A.nosuch
@A.nosuch || @A.healthy
@A.nosuch || true
true || @A.nosuch
@A.nosuch && false
false && @A.nosuch
@A.nosuch && true
true && @A.nosuch
@A.nosuch || false
@A.nosuch || @A.other
@A.model || true
@A.model && false
@A.model || false
!@A.model
@A.healthy ? 1 : 2
@A.healthy ? @A.model == "h100-sxm" : false
@A.model ? true : false
@A.nosuch ? true : false
(@A.numa > 0 ? "a" : "b") == "a"
@A.driverVersion
@A.driverVersion == semver("1.2.3")
@A.driverVersion != semver("1.2.3")
@A.driverVersion.isGreaterThan(semver("1.0.0"))
@A.driverVersion.isLessThan(semver("1.10.0"))
@A.driverVersion.compareTo(semver("1.2.3")) == 0
@A.driverVersion.compareTo(semver("1.2.4")) < 0
@A.driverVersion.major() == 1
@A.driverVersion.minor() == 2
@A.driverVersion.patch() == 3
@A.driverVersion < semver("2.0.0")
@A.driverVersion == "1.2.3"
@AO.fw.isGreaterThan(semver("2.0.0-rc.0"))
@AO.fw.isLessThan(semver("2.0.0"))
@AO.fw == semver("2.0.0-rc.1")
@AO.fw.compareTo(semver("2.0.0-rc.1+other")) == 0
semver("1.2.3").major() == 1
semver("v1.2.3").major() == 1
semver("v1.2.3", true).major() == 1
semver("1.2", true).minor() == 2
semver("01.02.03", true).patch() == 3
semver("1", true) == semver("1.0.0")
semver("1.2.3-alpha.01").major() == 1
semver("1.2.3-alpha.1") < semver("1.2.3")
semver("1.2.3-alpha.1").isLessThan(semver("1.2.3-alpha.beta"))
semver("1.2.3-alpha.10").isGreaterThan(semver("1.2.3-alpha.9"))
semver("1.2.3-1").isLessThan(semver("1.2.3-a"))
semver("1.2.3-a.b.c").isGreaterThan(semver("1.2.3-a.b"))
semver("") == semver("0.0.0")
semver("x").major() == 0
semver("1.2.3.4").major() == 1
semver("1.02.3").major() == 1
isSemver("1.2.3")
isSemver("1.2")
isSemver("1.2", true)
isSemver("v1.2.3")
isSemver("v1.2.3", true)
isSemver("1.2.3-")
isSemver("1.2.3+")
isSemver("1.2.3+a..b")
isSemver("1.2.3-01")
isSemver("1.2.3-0a")
isSemver("99999999999999999999.0.0")
isSemver(" 1.2.3")
isSemver(@A.model)
quantity("1Gi") == quantity("1024Mi")
quantity("80Gi") == @C.memory
@C.memory == quantity("81920Mi")
@C.memory.isGreaterThan(quantity("40Gi"))
@C.memory.isLessThan(quantity("100Gi"))
@C.memory.compareTo(quantity("80Gi")) == 0
@C.memory.compareTo(quantity("1")) > 0
@C.memory.sign() == 1
@C.cores.sign() == 1
@C.memory.asInteger() == 85899345920
@C.memory.asApproximateFloat() > 1e10
@C.memory.isInteger()
@C.fraction.isInteger()
@C.fraction.asInteger() == 0
@C.fraction.asApproximateFloat() == 0.5
@C.big.asInteger() > 0
@C.big.isInteger()
@C.memory.add(quantity("1Gi")) == quantity("81Gi")
@C.memory.add(1) == quantity("85899345921")
@C.memory.sub(quantity("80Gi")).sign() == 0
@C.memory.sub(1).isLessThan(@C.memory)
@C.cores.add(-5).sign()
@C.memory > quantity("1")
@C.memory == 85899345920
@C.memory < 1
@C.nosuch.sign() == 0
@CO.bandwidth.isGreaterThan(quantity("1G"))
@C.power.asInteger() == 700
quantity("1.5").asInteger() == 1
quantity("1.5").isInteger()
quantity("-1").sign() == -1
quantity("0").sign() == 0
quantity("1e3").asInteger() == 1000
quantity("1E").asInteger() > 0
quantity("9E").asInteger() > 0
quantity("100m").asApproximateFloat() == 0.1
quantity("1m").isInteger()
quantity("1Ki").compareTo(quantity("1k")) > 0
quantity("x") == quantity("1")
quantity("1GB") == quantity("1")
quantity("") == quantity("0")
quantity(" 1") == quantity("1")
quantity("1.2.3") == quantity("1")
quantity("1e") == quantity("1")
isQuantity("1Gi")
isQuantity("1.5e3")
isQuantity("abc")
isQuantity("")
isQuantity("-0.5Mi")
isQuantity("1Gi ")
quantity("1Gi").add(quantity("1.5")).isInteger()
quantity("9223372036854775807").add(1).isGreaterThan(quantity("1"))
quantity("1").sub(quantity("2")).sign() == -1
quantity("1") == quantity("1").add(quantity("0"))
quantity("1").add(1) == quantity("2").add(0)
quantity("1").add(1) == quantity("2")
quantity("1") != quantity("2").add(1)
quantity("1") in [quantity("1").add(0)]
quantity("1").add(0) in [quantity("1")]
[quantity("1")] == [quantity("1").add(0)]
quantity("1").isLessThan(quantity("2").add(1))
@C.memory == @C.memory.sub(0)
device.attributes.all(d, d.endsWith(".com"))
device.attributes.exists(d, d == "other.example.com")
device.attributes.exists_one(d, d.startsWith("dra"))
device.attributes.filter(d, d.size() > 0).size() >= 1
device.attributes.map(d, d.size()).all(n, n > 0)
device.attributes.map(d, d.size() > 0, d).size() >= 0
device.capacity.all(d, device.capacity[d].all(k, k.size() > 0))
@A.all(k, k.size() > 0)
@A.exists(k, k == "model")
@A.exists(k, @A[k] == 1)
@A.all(k, @A[k] != "zzz")
@A.exists_one(k, k == "numa")
@A.filter(k, k.startsWith("m")).size() == 2
@A.all(k, type(@A[k]) != list)
@C.all(k, @C[k].sign() >= 0)
@C.exists(k, @C[k].isGreaterThan(quantity("100")))
[1, 2, 3].all(x, x > 0)
[1, 2, 3].exists(x, x == 2)
[1, 2, 3].exists_one(x, x > 1)
[1, 2, 3].map(x, x * 2) == [2, 4, 6]
[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]
[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]
[1, 0, 3].all(x, 6 / x > 0)
[0, 1].exists(x, 1 / x == 1)
[1, 0].exists(x, 1 / x == 1)
[0, 1].all(x, 1 / x == 1)
[1, 0].all(x, 1 / x == 5)
[0, 2].exists_one(x, 1 / x == 0)
[].all(x, x)
[].exists(x, x)
[1].exists(x, x)
[true, false].all(x, x)
{"a": 1}.all(k, k == "a")
{"a": 1, "b": 2}.exists(k, k == "b")
{1: "a"}.all(k, k > 0)
[[1, 2], [3]].all(l, l.all(x, x > 0))
[1, 2].all(x, [3, 4].all(y, x < y))
[1, 2].map(x, [x, x]) == [[1, 1], [2, 2]]
[1, 2, 3].all(i, v, i < v)
[1, 2, 3].exists(i, v, i == 1 && v == 2)
[1, 2, 3].existsOne(i, v, v == 3)
[1, 2, 3].exists_one(i, v, v == 3)
{"a": 1}.all(k, v, k == "a" && v == 1)
@A.exists(k, v, k == "model" && v == "h100-sxm")
@A.all(k, v, k.size() > 0 && v != null)
[1, 2].transformList(i, v, v * 10) == [10, 20]
[1, 2].transformList(i, v, i > 0, v) == [2]
{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}
{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}
[1, 2, 3].map(x, x, x)
[1, 2].all(1, true)
[1, 2].all(x.y, true)
[1, 2].all(x)
[1, 2].map(x)
[1, 2].exists_one(x, x, x)
cel.bind(x, 1, x + 1 == 2)
cel.bind(x, @A.model, x.size() == 8)
cel.bind(a, @A, a.healthy && a.numa == 1 && a.model.lowerAscii().matches("^h100.*"))
cel.bind(x, 1, cel.bind(y, 2, x + y == 3))
cel.bind(x, 1, cel.bind(x, 2, x == 2))
cel.bind(x, [1, 2], x.all(y, y > 0))
cel.bind(1, 1, true)
cel.bind(x, 1)
cel.bind(x.y, 1, true)
cel.nosuch(1)
cel.bind(device, 1, device == 1)
@A.?model.hasValue()
@A.?nosuch.hasValue()
@A.?model.value() == "h100-sxm"
@A.?nosuch.value() == "x"
@A.?nosuch.orValue("dflt") == "dflt"
@A.?model.orValue("dflt") == "h100-sxm"
@A.?nosuch.or(optional.of("z")).value() == "z"
@A[?"model"].hasValue()
@A[?"nosuch"].orValue(5) == 5
device.attributes[?"nosuch.example.com"].hasValue()
device.attributes[?"dra.example.com"].?model.orValue("") == "h100-sxm"
device.?driver.value() == device.driver
optional.of(1).value() == 1
optional.of(1).hasValue()
optional.none().hasValue()
optional.none().orValue(2) == 2
optional.none().value() == 1
optional.ofNonZeroValue(0).hasValue()
optional.ofNonZeroValue("").hasValue()
optional.ofNonZeroValue("a").hasValue()
optional.ofNonZeroValue([]).hasValue()
optional.of(1).optMap(x, x + 1).value() == 2
optional.none().optMap(x, x + 1).hasValue()
optional.of(1).optFlatMap(x, optional.of(x * 3)).value() == 3
optional.unwrap([optional.of(1), optional.none()]) == [1]
[1, 2, 3].first().value() == 1
[1, 2, 3].last().value() == 3
[].first().hasValue()
[?optional.of(1), ?optional.none()] == [1]
{?"a": optional.of(1), ?"b": optional.none()} == {"a": 1}
{"a": 1}.?a.value() == 1
{"a": 1}[?"b"].hasValue()
[1, 2][?1].value() == 2
[1, 2][?5].hasValue()
optional.of(1) == optional.of(1)
optional.none() == optional.none()
type(optional.none()) == optional_type
sets.contains([1, 2, 3], [1, 2])
sets.contains([1, 2], [3])
sets.contains([], [])
sets.contains([1], [1.0])
sets.equivalent([1, 2], [2, 1, 1])
sets.equivalent([1u], [1])
sets.intersects([1, 2], [2, 3])
sets.intersects([], [1])
sets.contains(["a"], [@A.model])
sets.intersects([@A.model, "b"], ["h100-sxm"])
[1, 2, 3].slice(1, 2) == [2]
[1, 2, 3].slice(2, 1) == []
[1, 2, 3].slice(0, 5) == []
[1, 2, 3].slice(-1, 2) == []
[[1], [2, [3]]].flatten() == [1, 2, [3]]
[[1], [2, [3]]].flatten(2) == [1, 2, 3]
[[1]].flatten(-1) == [1]
[3, 1, 2].sort() == [1, 2, 3]
["b", "a"].sort() == ["a", "b"]
[1, "a"].sort() == []
[dyn(1), dyn("a")].sort() == []
[3, 1, 2].sortBy(x, -x) == [3, 2, 1]
lists.range(3) == [0, 1, 2]
lists.range(0) == []
lists.range(-1) == []
[1, 2, 3].reverse() == [3, 2, 1]
[1, 2, 1, 3].distinct() == [1, 2, 3]
[1, 1.0, 1u].distinct() == [1]
[1, 2, 3].isSorted()
[3, 1].isSorted()
["a", "b"].isSorted()
[].isSorted()
[1, 2, 3].sum() == 6
[1.5, 2.5].sum() == 4.0
[].sum() == 0
[9223372036854775807, 1].sum() > 0
[1, 2, 3].min() == 1
[1, 2, 3].max() == 3
[].min() == 0
["b", "a"].max() == "b"
[1, 2, 3].indexOf(2) == 1
[1, 2, 3].indexOf(5) == -1
[1, 2, 2].lastIndexOf(2) == 2
[@A.numa, 2].indexOf(1) == 0
[1, 2, 3].includes(2)
[1, 2, 3].includes(4)
[1, 2].includes([1, 2])
[[1], [2]].includes([1])
[1, 2].includes(2.0)
[1, 2].includes(dyn(2u))
["a", "b"].includes("b")
[quantity("1"), quantity("2")].includes(quantity("2"))
[quantity("1")].includes(1)
"model-a".includes("model-a")
"model-a".includes("model")
1.includes(1)
{"a": 1}.includes({"a": 1})
@A.model.includes(@A.model)
@A.numa.includes(1)
[@A.numa, @A.model].includes(@A.model)
device.attributes.includes("dra.example.com")
device.attributes.`dra.example.com`.numa == 1
has(device.attributes.`dra.example.com`.model)
device.attributes.`other.example.com`.fw
math.greatest(1, 2) == 2
math.least([1, 2]) == 1
math.abs(-1) == 1
"%s-%d".format(["a", 1]) == "a-1"
"%d".format([1.5]) == "1"
"%.2f".format([1.5]) == "1.50"
"%x".format([255]) == "ff"
"%X".format(["ab"]) == "6162"
"%o".format([8]) == "10"
"%b".format([5]) == "101"
"%e".format([1234.5]) == "1.234500e+03"
"%s".format([[1, "a"]]) == "[1, a]"
"%s".format([{"a": 1}]) == "{a: 1}"
"%s".format([null]) == "null"
"%s".format([1.0]) == "1"
"%s".format([b"ab"]) == "ab"
"%s %s".format(["a"]) == "a"
"%z".format([1]) == ""
"%%".format([]) == "%"
"%s".format([@A.model]) == "h100-sxm"
"%d".format([@A.numa]) == "1"
strings.quote("a\"b") == "\"a\\\"b\""
strings.quote("\n") == "\"\\n\""
"abc".reverse() == "cba"
"ab".charAt(1) == "b"
"héllo".size() == 5
"héllo".charAt(1) == "é"
"héllo".indexOf("l") == 2
"héllo".substring(1, 3) == "él"
"héllo".upperAscii() == "HéLLO"
"héllo".lastIndexOf("l") == 3
b"héllo".size() == 6
"\u00e9" == "é"
"\x41" == "A"
"\101" == "A"
'single' == "single"
r"\d+" == "\\d+"
"a\tb".size() == 3
"\U0001F600".size() == 1
b"\377".size() == 1
"a" + "b" == "ab"
b"a" + b"b" == b"ab"
[1] + [2] == [1, 2]
[1] + ["a"] == [1]
{"a": 1} == {"a": 1}
{"a": 1} == {"a": 2}
{"a": 1, "b": 2} == {"b": 2, "a": 1}
{1: 1} == {1u: 1}
{1: "a"}[1u] == "a"
{1: "a"}[1.0] == "a"
{1u: "a"}[1] == "a"
{"a": 1}["b"] == 1
{"a": 1}.b == 1
{"a": {"b": 1}}.a.b == 1
[1, 2][2] == 1
[1, 2][-1] == 1
[1, 2][1u] == 2
[1, 2][1.0] == 2
[1, 2][1.5] == 2
[1, 2]["a"] == 2
[1, "a"] == [1]
{"a": 1, "b": "c"}.size() == 2
{"a": 1, "a": 2}.size() == 1
[1, 2] == [1, 2]
[1, 2] == [1, 2.0]
[1, 2] == [2, 1]
[] == []
null == null
null == 1
dyn(null) == dyn(1)
b"a" == b"a"
b"a" < b"b"
"a" < "b"
"b" <= "a"
"abc" > "abd"
"" < "a"
true > false
false < true
1 < 2u
1.0 <= 1
-1 < 0u
1 == 1u
1 != 1.0
2.5 > 2
9223372036854775807 < 9223372036854775807.0
9223372036854775807 == 9223372036854775807.0
18446744073709551615u > 1.8e19
0.0 == -0.0
1 in [1u]
1.5 in [1, 2]
"a" in ["a"]
"a" in {"a": 1}
1 in {"1": 1}
[1] in [[1]]
1 in 1
1 in "a"
"a" in "abc"
size([1, 2]) == 2
size({"a": 1}) == 1
size(b"ab") == 2
size(1) == 1
[1, 2].size() == 2
{}.size() == 0
1 + "a" == "1a"
"a" + 1 == "a1"
1 + 1u == 2
1 + 1.0 == 2.0
1.0 + 1u == 2.0
true + true
-"a"
!1
-true
1 < "a"
"a" > 1
[1] < [2]
{"a": 1} < {"b": 1}
null < 1
true && 1
1 || true
1 ? 2 : 3
true ? 1 : "a"
true ? 1 : 2u
@A.healthy ? 1 : "a"
nosuch
nosuch.field
nosuch == 1
device.nosuch == 1
kubernetes.Semver
kubernetes.Quantity
authorizer.group("a")
nosuchfn(1)
device.driver.nosuchfn()
device.driver.size(1)
size()
size(1, 2)
"a".startsWith(1)
"a".matches("[")
"a".find("(")
"a".findAll("(")
[1, 2, 3].size(
(1
)
1 +
+1
1 ++ 2
!!true
!!!false
--1 == 1
- -1 == 1
1--1 == 2
1 - -1 == 2
a.b.c
.device
device..driver
device.driver.
@
#
$
"unterminated
'x
"a" "b"
1 2
true false
[1, 2,]
{"a": 1,}
[,]
{:}
f(,)
device.attributes[
device.attributes]
in
if
else
var == 1
let
package
function
void
namespace
return
import
loop
for
while
break
continue
as
true.false
null.x
1.x
1.size()
1..2
1.e5 == 100000.0
1e5 == 100000.0
.5 == 0.5
1e == 1
0x1F == 31
0X1f == 31
0x1Fu == 31u
01 == 1
00 == 0
1u == 1U
-0x1 == -1
0xFFFFFFFFFFFFFFFF
0xFFFFFFFFFFFFFFFFu > 0u
9223372036854775808
-9223372036854775808 < 0
-9223372036854775809
18446744073709551616u
1e400 > 0.0
"\z"
"\u12"
"\uD800"
"\x"
b"\u1234"
"\777"
"a
b"
r'\'
device.attributes.dra.example.com
device.attributes.`dra.example.com`.model
device.attributes.dra\.example
{"a": 1}.a
{"a": 1}.?a
[1][?0]
x.?y
a[?b]
has(1)
has(device)
has(device.attributes["dra.example.com"])
has(x.y)
has(device.attributes.dra)
has({"a": 1}.a)
has({"a": 1}.b)
has([1].a)
has(@A.model.x)
has(dyn(1).x)
[1, 2, 3].all(x, x > 0) && [1, 2, 3].exists(y, y == 1)
lists.range(1000).all(x, lists.range(1000).all(y, true))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, true)))))
[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, a))))).size() == 10
[1,2,3,4,5,6,7,8,9,10].exists(a, [1,2,3,4,5,6,7,8,9,10].exists(b, [1,2,3,4,5,6,7,8,9,10].exists(c, [1,2,3,4,5,6,7,8,9,10].exists(d, [1,2,3,4,5,6,7,8,9,10].exists(e, [1,2,3,4,5,6,7,8,9,10].exists(f, false))))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0 && b > 0))))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, @A.model.matches("^h100")))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, "x" + "y" == "xy")))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [a, b, c, d].size() == 4))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, {"a": a}.size() == 1))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, device.driver == "dra.example.com")))))
[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, @A.numa >= 0)))))
[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].filter(d, d > 5)))).size() == 10
cel.bind(l, [1,2,3,4,5,6,7,8,9,10], l.all(a, l.all(b, l.all(c, l.all(d, l.all(e, l.all(f, true)))))))
cel.bind(l, [1,2,3,4,5,6,7,8,9,10], l.all(a, l.all(b, l.all(c, l.all(d, l.all(e, true))))))
cel.bind(l, [1,2,3,4,5,6,7,8,9,10], l.all(a, l.all(b, l.all(c, l.all(d, l.all(e, a + b + c + d + e > 0))))))
[1,2,3].all(a, [1,2,3].all(b, a + b > 0))
device.attributes.all(d, device.attributes.all(e, d.size() > 0))
timestamp("2024-01-01T00:00:00Z") < timestamp("2025-01-01T00:00:00Z")
timestamp("bad")
duration("1h") > duration("1m")
duration("1x")
timestamp("2024-01-01T00:00:00Z").getFullYear() == 2024
url("https://example.com").getHost() == "example.com"
isURL("https://example.com")
ip("10.0.0.1").family() == 4
isIP("::1")
cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))
isCIDR("10.0.0.0/33")
format.dns1123Label().validate("abc").hasValue()
"a".matches("^\\p{L}$")
"é".matches("^.$")
"abc".matches("b")
"abc".matches("^b")
"aaa".matches("a{2,}")
"ab".matches("(?i)AB")
"a\nb".matches("a.b")
"ab".matches("\\bab\\b")
"ab".matches("(?P<x>a)b")
"ab".matches("a++")
"ab".matches("\\Z")
"ab".matches("[[:alpha:]]+")
"ab".find("(a)(b)") == "ab"
"a1b22".findAll("[0-9]+") == ["1", "22"]
"".findAll("x") == []
"aaa".findAll("") == ["", "", "", ""]
"""

# Timestamps and durations (cel-go's standard library on Go's time package): constructors from strings
# Go's time.Parse and time.ParseDuration accept or reject, conversions, arithmetic with its overflow
# errors, the calendar accessors in UTC and at fixed offsets, and type().
TIME = r"""
timestamp("2024-01-01T00:00:00Z") == timestamp("2024-01-01T01:00:00+01:00")
timestamp("2024-02-29T12:00:00Z").getDate() == 29
timestamp("2023-02-29T12:00:00Z") == timestamp(0)
timestamp("2024-01-01T1:02:03Z") == timestamp("2024-01-01T01:02:03Z")
timestamp("2024-01-01T01:02:03,5Z") == timestamp("2024-01-01T01:02:03.5Z")
timestamp("2024-01-01T01:02:03.1234567891Z").getMilliseconds() == 123
timestamp("2024-01-01T00:00:00+24:00") < timestamp("2024-01-01T00:00:00Z")
timestamp("2024-01-01T00:00:00+23:60") < timestamp("2024-01-01T00:00:00Z")
timestamp("2024-01-01T00:00:00+25:00") < timestamp("2024-01-01T00:00:00Z")
timestamp("2024-01-01 00:00:00Z") == timestamp(0)
timestamp("2024-01-01T00:00:00z") == timestamp(0)
timestamp("2024-01-01T00:00:00") == timestamp(0)
timestamp("2024-1-01T00:00:00Z") == timestamp(0)
timestamp("2024-01-01T00:00:60Z") == timestamp(0)
timestamp("2024-01-01T24:00:00Z") == timestamp(0)
timestamp("") == timestamp(0)
timestamp("0001-01-01T00:00:00Z") == timestamp(-62135596800)
timestamp("0001-01-01T00:00:00+01:00") == timestamp(0)
timestamp("9999-12-31T23:59:59.999999999Z") > timestamp(0)
timestamp("9999-12-31T23:59:59-01:00") > timestamp(0)
timestamp(253402300799) > timestamp(0)
timestamp(253402300800) > timestamp(0)
timestamp(-62135596801) > timestamp(0)
timestamp(1.5) == timestamp(1)
timestamp(true) == timestamp(1)
timestamp(timestamp(5)) == timestamp(5)
string(timestamp("2024-01-01T00:00:00.120+05:30")) == "2024-01-01T00:00:00.12+05:30"
string(timestamp("2024-01-01T00:00:00-00:00")) == "2024-01-01T00:00:00Z"
string(timestamp(0)) == "1970-01-01T00:00:00Z"
string(timestamp("2024-01-01T00:00:00+01:00") + duration("1h")) == "2024-01-01T01:00:00+01:00"
int(timestamp("2024-01-01T00:00:00.9Z")) == 1704067200
int(timestamp("1969-12-31T23:59:59.5Z")) == -1
type(timestamp(0)) == google.protobuf.Timestamp
type(duration("1s")) == google.protobuf.Duration
type(timestamp(0)) == type(duration("1s"))
google.protobuf.Timestamp == google.protobuf.Timestamp
string(type(timestamp(0))) == "google.protobuf.Timestamp"
duration("1h30m") == duration("90m")
duration("-1.5s") == duration("-1500ms")
duration(".5us") == duration("500ns")
duration("1µs") == duration("1us")
duration("1μs") == duration("1us")
duration("0") == duration("0s")
duration("-0") == duration("0s")
duration("+5s") == duration("5s")
duration("1") == duration("0s")
duration("") == duration("0s")
duration("1d") == duration("24h")
duration("1.s") == duration("1s")
duration(".s") == duration("1s")
duration("1h-1m") == duration("1s")
duration("2562047h47m16.854775807s") > duration("0s")
duration("2562047h47m16.854775808s") > duration("0s")
duration("-2562047h47m16.854775808s") < duration("0s")
duration("3000000h") > duration("0s")
duration("0.0000000001s") == duration("0s")
duration("1.00000000000000000001s") == duration("1s")
duration(5) == duration("5ns")
duration(duration("1s")) == duration("1s")
string(duration("1h30m")) == "5400s"
string(duration("1.5s")) == "1.5s"
string(duration("-1ns")) == "-0.000000001s"
string(duration("0s")) == "0s"
string(duration("2562047h47m16.854775807s")) == "9223372036.854776s"
int(duration("1s")) == 1000000000
int(duration("-1ns")) == -1
duration("1h").getHours() == 1
duration("-90m").getHours() == -1
duration("3723s").getMinutes() == 62
duration("3723.456s").getSeconds() == 3723
duration("3723.456s").getMilliseconds() == 3723456
duration("-1.5s").getMilliseconds() == -1500
duration("1m") + duration("1s") == duration("61s")
duration("1m") - duration("1s") == duration("59s")
duration("2562047h") + duration("2562047h") > duration("0s")
duration("-2562047h") - duration("2562047h") < duration("0s")
duration("1s") < duration("2s") && duration("2s") >= duration("2s") && duration("3s") > duration("2s")
duration("1s") <= duration("-2s")
duration("1s") == duration("1000ms")
duration("1s") != duration("1001ms")
timestamp(0) + duration("1s") == timestamp(1)
duration("1s") + timestamp(0) == timestamp(1)
timestamp(1) - duration("1s") == timestamp(0)
timestamp(10) - timestamp(4) == duration("6s")
timestamp(4) - timestamp(10) == duration("-6s")
timestamp("9999-12-31T23:59:59Z") + duration("1s") > timestamp(0)
timestamp("0001-01-01T00:00:00Z") - duration("1ns") > timestamp(0)
timestamp("9999-12-31T23:59:59Z") - timestamp("0001-01-01T00:00:00Z") > duration("0s")
timestamp("2262-01-01T00:00:00Z") - timestamp("1970-01-01T00:00:00Z") > duration("0s")
timestamp(0) - duration("-2562047h47m16.854775808s") > timestamp(0)
timestamp(0) + duration("-2562047h47m16.854775808s") < timestamp(0)
timestamp(0) < timestamp(1) && timestamp(1) <= timestamp(1) && timestamp(2) > timestamp(1) && timestamp(2) >= timestamp(2)
timestamp(0) == duration("0s")
timestamp(0) + 1 == timestamp(1)
dyn(timestamp(0)) + dyn(1) == timestamp(1)
dyn(timestamp(0)) < dyn(duration("1s"))
dyn(duration("1s")) - dyn(timestamp(0)) == duration("1s")
dyn(timestamp(0)) == dyn(duration("0s"))
dyn(timestamp(0)) == dyn(0)
timestamp(0) in [timestamp(0), timestamp(1)]
duration("1s") in [duration("1s")]
[timestamp(1), timestamp(0)].sort() == [timestamp(0), timestamp(1)]
[duration("2s"), duration("1s")].max() == duration("2s")
[timestamp(1), timestamp(0)].min() == timestamp(0)
optional.ofNonZeroValue(timestamp("0001-01-01T00:00:00Z")).hasValue()
optional.ofNonZeroValue(timestamp(0)).hasValue()
optional.ofNonZeroValue(duration("0s")).hasValue()
timestamp("2023-07-14T10:30:45.123Z").getFullYear() == 2023
timestamp("2023-07-14T10:30:45.123Z").getMonth() == 6
timestamp("2023-07-14T10:30:45.123Z").getDayOfYear() == 194
timestamp("2023-07-14T10:30:45.123Z").getDayOfMonth() == 13
timestamp("2023-07-14T10:30:45.123Z").getDate() == 14
timestamp("2023-07-14T10:30:45.123Z").getDayOfWeek() == 5
timestamp("2023-07-14T10:30:45.123Z").getHours() == 10
timestamp("2023-07-14T10:30:45.123Z").getMinutes() == 30
timestamp("2023-07-14T10:30:45.123Z").getSeconds() == 45
timestamp("2023-07-14T10:30:45.123Z").getMilliseconds() == 123
timestamp("2023-01-01T05:30:00Z").getFullYear("-08:00") == 2022
timestamp("2023-01-01T05:30:00Z").getMonth("-08:00") == 11
timestamp("2023-01-01T05:30:00Z").getDayOfYear("-08:00") == 364
timestamp("2023-01-01T05:30:00Z").getDate("-05:30") == 1
timestamp("2023-01-01T05:30:00Z").getDayOfMonth("-05:31") == 30
timestamp("2023-01-01T05:30:00Z").getDayOfWeek("+14:00") == 0
timestamp("2023-01-01T05:30:00Z").getHours("+05:30") == 11
timestamp("2023-01-01T05:30:00Z").getMinutes("+05:45") == 15
timestamp("2023-01-01T05:30:00Z").getSeconds("UTC") == 0
timestamp("2023-01-01T05:30:00Z").getMilliseconds("") == 0
timestamp("2023-01-01T05:30:00+02:00").getHours() == 3
timestamp("2023-01-01T05:30:00Z").getHours("05:30") == 11
timestamp("2023-01-01T05:30:00Z").getHours("-00:30") == 5
timestamp("2023-01-01T05:30:00Z").getHours("+1:5") == 6
timestamp("2023-01-01T05:30:00Z").getHours("x:00") == 0
timestamp("2023-01-01T05:30:00Z").getHours("+01:") == 0
timestamp("2023-01-01T05:30:00Z").getHours(":") == 0
timestamp("2023-01-01T05:30:00Z").getHours("99999999999999999999:00") == 0
timestamp("2023-01-01T05:30:00Z").getHours("No/Such_Zone") == 0
timestamp("2023-01-01T05:30:00Z").getHours("../etc") == 0
timestamp("2023-01-01T05:30:00Z").getHours("/etc/passwd") == 0
timestamp("2023-01-01T05:30:00Z").getHours(1) == 0
timestamp("2024-07-01T12:00:00Z").getHours("Europe/Berlin") == 14
timestamp("2024-01-01T12:00:00Z").getHours("Europe/Berlin") == 13
timestamp("2024-01-01T12:00:00Z").getMinutes("Asia/Kolkata") == 30
timestamp("2024-03-10T07:30:00Z").getHours("America/New_York") == 3
timestamp("2024-01-01T12:00:00Z").getHours("Local") == 12
timestamp("2095-07-01T12:00:00Z").getHours("America/New_York") == 8
timestamp("2095-12-01T12:00:00Z").getHours("America/New_York") == 7
timestamp("2095-01-01T12:00:00Z").getHours("Australia/Sydney") == 23
timestamp("2095-07-01T12:00:00Z").getHours("Australia/Sydney") == 22
timestamp("2024-03-31T00:59:59Z").getHours("Europe/London") == 0
timestamp("2024-03-31T01:00:00Z").getHours("Europe/London") == 2
timestamp("1800-01-01T12:00:00Z").getMinutes("Europe/Berlin") == 53
timestamp("1800-01-01T12:00:00Z").getSeconds("Europe/Berlin") == 28
timestamp("0001-01-01T00:00:00Z").getFullYear("America/New_York") == 0
timestamp("9999-12-31T23:59:59Z").getFullYear("Pacific/Kiritimati") == 10000
timestamp("2024-06-01T00:00:00Z").getHours("Asia/Kolkata") == 5
timestamp("2024-06-01T00:00:00Z").getMinutes("Asia/Kathmandu") == 45
timestamp("2024-06-01T00:00:00Z").getHours("Etc/GMT+5") == 19
timestamp("2024-06-01T00:00:00Z").getHours("US/Central") == 19
timestamp("2024-06-01T00:00:00Z").getHours("America/Sao_Paulo") == 21
timestamp("2024-06-01T00:00:00Z").getHours("Antarctica/Troll") == 2
timestamp("2024-06-01T00:00:00Z").getHours("America") == 0
timestamp("2024-06-01T00:00:00Z").getHours("zone.tab") == 0
timestamp("2024-06-01T00:00:00Z").getHours("europe/berlin") == 0
timestamp("2024-06-01T00:00:00Z").getHours("UTC ") == 0
timestamp("2024-06-01T00:00:00Z").getHours("Etc/UTC") == 0
timestamp("2024-06-01T00:00:00Z").getHours("GMT") == 0
duration("1h").getFullYear() == 0
duration("1h").getHours("UTC") == 1
dyn(duration("1h")).getHours() == 1
dyn(timestamp(3600)).getHours() == 1
dyn("x").getHours() == 1
timestamp(0).getDayOfWeek() == 4
timestamp(-1).getDayOfWeek() == 3
timestamp(-62135596800).getDayOfWeek() == 1
timestamp("2000-02-29T00:00:00Z").getDayOfYear() == 59
timestamp("2100-12-31T00:00:00Z").getDayOfYear() == 364
string(timestamp("2024-01-01T00:00:00Z") - timestamp("2023-01-01T00:00:00Z")) == "31536000s"
timestamp(@A.numa) > timestamp(0)
duration(@A.model) > duration("0s")
timestamp(@A.model) > timestamp(0)
duration(string(@A.numa) + "s") == duration("1s")
timestamp("2024-01-01T00:00:00Z") > timestamp(device.driver)
@A.numa == timestamp(1)
timestamp
duration
timestamp == google.protobuf.Timestamp && duration == google.protobuf.Duration
timestamp == type(timestamp(0)) && duration != timestamp
[timestamp, duration, int] == [google.protobuf.Timestamp, google.protobuf.Duration, int]
dyn(duration("1s")) - dyn(1) == duration("1s")
dyn(duration("1s")) * dyn(2) == duration("2s")
dyn(timestamp(0)) * 2 == timestamp(0)
-dyn(duration("1s")) == duration("-1s")
-duration("1s") == duration("-1s")
size(duration("1s")) == 1
dyn(duration("1s")) - dyn(duration("2s")) == duration("-1s")
dyn(timestamp(5)) - dyn(duration("2s")) == timestamp(3)
dyn(timestamp(5)) - dyn(timestamp(2)) == duration("3s")
timestamp(0) == null
null != duration("1s")
quantity("1") == null
null == semver("1.0.0")
optional.none() == null
device == null
device.attributes["dra.example.com"].model == null
[timestamp(0), null].size() == 2
-dyn(duration("-2562047h47m16.854775808s")) == duration("1s")
-dyn(timestamp(0)) == timestamp(0)
dyn(timestamp(0)).getHours(1) == 0
dyn(duration("1s")).getFullYear() == 0
dyn(timestamp(0)) != null
{"a": timestamp(0)}.a == timestamp(0)
[timestamp(0), duration("1s")].size() == 2
[duration("2s"), duration("1s")].sortBy(d, d) == [duration("1s"), duration("2s")]
[1, 2].sortBy(d, [timestamp(2), timestamp(1)][d - 1]) == [2, 1]
timestamp(0)
duration("1s")
timestamp("x")
duration("1x")
duration(1.5)
"""

def parse_ts(text):
    """(seconds since the epoch, nanoseconds, offset seconds) of a well-formed RFC 3339 text."""
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|([+-])(\d\d):(\d\d))", text)
    y, mo, d, h, mi, se = (int(m.group(i)) for i in range(1, 7))
    nanos = int((m.group(7) or "").ljust(9, "0")[:9])
    offset = 0 if m.group(8) == "Z" else (1 if m.group(9) == "+" else -1) * (int(m.group(10)) * 3600 + int(m.group(11)) * 60)
    days = (datetime.date(y, mo, d) - datetime.date(1970, 1, 1)).days
    return days * 86400 + h * 3600 + mi * 60 + se - offset, nanos, offset


def ts_literal(sec, nanos):
    """A timestamp() literal of an instant, or timestamp(0) when CEL's range does not hold it."""
    if not -62135596800 <= sec <= 253402300799:
        return "timestamp(0)"
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=sec)
    frac = (".%09d" % nanos) if nanos else ""
    return 'timestamp("%s%sZ")' % (t.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0"), frac)


def zone_offset(z):
    m = re.fullmatch(r'"([+-])(\d\d):(\d\d)"', z)
    if not m:
        return 0
    return (1 if m.group(1) == "+" else -1) * (int(m.group(2)) * 3600 + int(m.group(3)) * 60)


TIME_TEXTS = ["1970-01-01T00:00:00Z", "2024-03-10T02:30:00.5-05:00", "9999-12-31T23:59:59.999999999Z",
              "0001-01-01T00:00:00Z", "2000-02-29T23:59:59.001+14:00", "1969-12-31T23:59:59.999999999Z"]
DURATIONS = {"0s": 0, "1h2m3.5s": 3723500000000, "-1ns": -1, "2562047h47m16.854775807s": 2**63 - 1,
             "-2562047h47m16.854775808s": -2**63, "-90m": -5400 * 10**9}
TIMEZONES = ['"UTC"', '"+01:00"', '"-05:30"', '"+14:00"', '"-00:01"', '"x"', '"1:2:3"', '""']
INT64 = (-2**63, 2**63 - 1)


def civil(local_seconds):
    """Year, month, day, day of the year, weekday (0 = Sunday), hour, minute, second of seconds since the
    epoch in the proleptic Gregorian calendar (also past year 9999, where Python's datetime stops)."""
    days, rem = divmod(local_seconds, 86400)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (mo <= 2)
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    yday = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][mo - 1] + d + (1 if leap and mo > 2 else 0)
    return y, mo, d, yday, (days + 4) % 7, rem // 3600, rem // 60 % 60, rem % 60


def time_combinations():
    out = []
    for text in TIME_TEXTS:
        sec, nanos, _ = parse_ts(text)
        t = 'timestamp("%s")' % text
        for dtext, dn in DURATIONS.items():
            d = 'duration("%s")' % dtext
            for sign in (1, -1):
                total = sec * 10**9 + nanos + sign * dn
                op = "+" if sign == 1 else "-"
                out.append("%s %s %s == %s" % (t, op, d, ts_literal(total // 10**9, total % 10**9)))
        for other in TIME_TEXTS:
            osec, onanos, _ = parse_ts(other)
            diff = (sec - osec) * 10**9 + nanos - onanos
            lit = 'duration("%dns")' % diff if INT64[0] <= diff <= INT64[1] else 'duration("0s")'
            out.append('%s - timestamp("%s") == %s' % (t, other, lit))
        for z in TIMEZONES:
            y, mo, d, yday, wday, h, mi, se = civil(sec + zone_offset(z))
            fields = [("getFullYear", y), ("getMonth", mo - 1), ("getDate", d), ("getDayOfMonth", d - 1),
                      ("getDayOfYear", yday - 1), ("getDayOfWeek", wday), ("getHours", h), ("getMinutes", mi),
                      ("getSeconds", se), ("getMilliseconds", nanos // 10**6)]
            out.append(" && ".join("%s.%s(%s) == %d" % (t, f, z, v) for f, v in fields))
        out.append(" && ".join("%s.%s() == %s.%s(\"UTC\")" % (t, f, t, f) for f in ["getFullYear", "getHours"]))
        out.append("int(%s) == %d" % (t, sec))
    for dtext, dn in DURATIONS.items():
        d = 'duration("%s")' % dtext
        for etext, en in DURATIONS.items():
            e = 'duration("%s")' % etext
            for sign, op in ((1, "+"), (-1, "-")):
                r = dn + sign * en
                lit = 'duration("%dns")' % r if INT64[0] <= r <= INT64[1] else 'duration("0s")'
                out.append("%s %s %s == %s" % (d, op, e, lit))
        trunc = lambda a, b: -(-a // b) if a < 0 else a // b
        out.append("%s.getHours() == %d && %s.getMinutes() == %d && %s.getSeconds() == %d && %s.getMilliseconds() == %d && int(%s) == %d"
                   % (d, trunc(dn, 3600 * 10**9), d, trunc(dn, 60 * 10**9), d, trunc(dn, 10**9), d, trunc(dn, 10**6), d, dn))
    return out




# Kubernetes' ip() and cidr() libraries: Go's net/netip parsing (leading zeros, zones, IPv4-mapped
# IPv6 and malformed text rejected, with netip's error texts), printing, the address classes, containment.
NET = r"""
ip("10.0.0.1").family() == 4
ip("::1").family() == 6
isIP("10.0.0.1") && isIP("::1") && isIP("2001:db8::68") && isIP("::ffff:1.2.3.4") == false
isIP("010.0.0.1")
isIP("1.2.3")
isIP("1.2.3.4.5")
isIP("256.0.0.1")
isIP("1..2.3")
isIP("fe80::1%eth0")
isIP("")
isIP("1.2.3.4 ")
ip("010.0.0.1") == ip("10.0.0.1")
ip("1.2.3") == ip("10.0.0.1")
ip("1.2.3.4.5") == ip("10.0.0.1")
ip("256.0.0.1") == ip("10.0.0.1")
ip("1..2.3") == ip("10.0.0.1")
ip(".1.2.3") == ip("10.0.0.1")
ip("1.2.3.") == ip("10.0.0.1")
ip("1.2.3.x") == ip("10.0.0.1")
ip("fe80::1%eth0") == ip("10.0.0.1")
ip("fe80::1%") == ip("10.0.0.1")
ip("%eth0") == ip("10.0.0.1")
ip("::ffff:1.2.3.4") == ip("1.2.3.4")
ip("::ffff:0102:0304") == ip("1.2.3.4")
ip("") == ip("10.0.0.1")
ip("abc") == ip("10.0.0.1")
ip("1:2:3:4:5:6:7:8:9") == ip("::1")
ip("1:2:3:4:5:6:7") == ip("::1")
ip("1::2::3") == ip("::1")
ip("12345::1") == ip("::1")
ip("1:2:3:4:5:6:7::") == ip("1:2:3:4:5:6:7:0")
ip("1:2:3:4:5:6:7:8::") == ip("::1")
ip("::1:") == ip("::1")
ip(":1") == ip("::1")
ip("1:") == ip("::1")
ip("::g") == ip("::1")
ip("1:2:3:4:5:6:1.2.3.4") == ip("1:2:3:4:5:6:102:304")
ip("::1.2.3.4") == ip("::102:304")
ip("1:2:3:4:5:6:7:1.2.3.4") == ip("::1")
ip("1:2::1.2.3.04") == ip("::1")
ip("1.2.3.4:5") == ip("::1")
ip("é") == ip("::1")
ip("1.2.3.\u00e9") == ip("::1")
ip("1.2.3.\n") == ip("::1")
ip("10.0.0.1") == ip("10.0.0.1") && ip("10.0.0.1") != ip("10.0.0.2")
ip("::1") == ip("0:0:0:0:0:0:0:1")
ip("10.0.0.1") == "10.0.0.1"
ip("10.0.0.1") != "10.0.0.1"
"10.0.0.1" == ip("10.0.0.1")
ip("10.0.0.1") == null
ip("10.0.0.1") in [ip("10.0.0.1")]
ip("10.0.0.1") in ["10.0.0.1"]
string(ip("2001:0DB8:0000:0000:0000:0000:0000:0001")) == "2001:db8::1"
string(ip("1:0:0:2:0:0:0:3")) == "1:0:0:2::3"
string(ip("1:0:0:2:0:0:3:4")) == "1::2:0:0:3:4"
string(ip("1:0:2:0:3:0:4:0")) == "1:0:2:0:3:0:4:0"
string(ip("0:0:0:0:0:0:0:0")) == "::"
string(ip("::ffff:0:1.2.3.4")) == "::ffff:0:102:304"
string(ip("10.000.0.1")) == "10.0.0.1"
ip.isCanonical("10.0.0.1") && ip.isCanonical("2001:db8::1")
ip.isCanonical("2001:DB8::1")
ip.isCanonical("2001:db8:0::1")
ip.isCanonical("bad")
ip("0.0.0.0").isUnspecified() && ip("::").isUnspecified() && !ip("::1").isUnspecified()
ip("127.0.0.1").isLoopback() && ip("127.255.0.1").isLoopback() && ip("::1").isLoopback() && !ip("::2").isLoopback()
ip("224.0.0.1").isLinkLocalMulticast() && !ip("224.0.1.1").isLinkLocalMulticast() && ip("ff02::1").isLinkLocalMulticast() && ip("ff12::1").isLinkLocalMulticast() && !ip("ff05::1").isLinkLocalMulticast()
ip("169.254.1.1").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast() && ip("febf::1").isLinkLocalUnicast() && !ip("fec0::1").isLinkLocalUnicast()
ip("8.8.8.8").isGlobalUnicast() && ip("10.0.0.1").isGlobalUnicast() && !ip("255.255.255.255").isGlobalUnicast() && !ip("0.0.0.0").isGlobalUnicast()
!ip("239.1.1.1").isGlobalUnicast() && !ip("ff05::1").isGlobalUnicast() && !ip("fe80::1").isGlobalUnicast() && ip("2001:db8::1").isGlobalUnicast() && !ip("::").isGlobalUnicast() && !ip("::1").isGlobalUnicast()
ip("255.255.255.254").isGlobalUnicast() && ip("::2").isGlobalUnicast()
type(ip("10.0.0.1")) == net.IP
type(cidr("10.0.0.0/8")) == net.CIDR
type(ip("10.0.0.1")) != type(cidr("10.0.0.0/8"))
dyn(ip("10.0.0.1")).family() == 4
dyn("10.0.0.1").family() == 4
dyn(cidr("10.0.0.0/8")).family() == 4
ip(dyn(cidr("10.0.0.0/8"))) == ip("10.0.0.0")
dyn(cidr("10.1.0.0/8")).ip() == ip("10.1.0.0")
dyn(ip("10.0.0.1")).ip() == ip("10.0.0.1")
ip(1) == ip("10.0.0.1")
ip("10.0.0.1")
ip("10.0.0.1").family()
cidr("10.0.0.0/8")
cidr("10.0.0.0/8").containsIP(ip("10.1.2.3")) && !cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))
cidr("10.0.0.0/8").containsIP("10.1.2.3") && !cidr("10.0.0.0/8").containsIP("11.0.0.1")
cidr("10.0.0.0/8").containsIP("bad")
cidr("10.0.0.0/8").containsIP("::ffff:10.0.0.1")
cidr("10.0.0.0/8").containsIP(ip("::1"))
cidr("::/0").containsIP(ip("10.0.0.1"))
cidr("0.0.0.0/0").containsIP(ip("10.0.0.1")) && cidr("::/0").containsIP(ip("::1"))
cidr("10.1.2.3/8").containsIP(ip("10.200.0.1"))
cidr("2001:db8::/32").containsIP("2001:db8:ffff::1") && !cidr("2001:db8::/32").containsIP("2001:db9::1")
cidr("10.0.0.0/8").containsCIDR(cidr("10.1.0.0/16")) && !cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))
cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") && cidr("10.0.0.0/8").containsCIDR("10.0.0.0/8")
cidr("10.0.0.0/8").containsCIDR("bad")
cidr("10.0.0.0/8").containsCIDR("::/0")
cidr("10.0.0.0/8").containsCIDR("10.1.0.0/99")
cidr("10.0.0.0/8").containsCIDR(cidr("11.0.0.0/16"))
cidr("0.0.0.0/0").containsCIDR(cidr("11.0.0.0/16"))
cidr("10.0.0.0/8").containsCIDR(ip("10.0.0.1"))
cidr("10.0.0.0/8").containsIP(cidr("10.0.0.0/8"))
cidr("10.1.2.3/8").prefixLength() == 8 && cidr("::/0").prefixLength() == 0 && cidr("::1/128").prefixLength() == 128
cidr("10.1.2.3/8").ip() == ip("10.1.2.3")
cidr("10.1.2.3/8").masked() == cidr("10.0.0.0/8")
cidr("10.1.2.3/8") == cidr("10.0.0.0/8")
cidr("10.1.2.3/8").masked().ip() == ip("10.0.0.0")
string(cidr("10.1.2.3/8").masked()) == "10.0.0.0/8"
string(cidr("2001:DB8:1:2:3:4:5:6/33").masked()) == "2001:db8::/33"
string(cidr("2001:db8:ffff::1/35").masked()) == "2001:db8:e000::/35"
string(cidr("10.1.2.3/31").masked()) == "10.1.2.2/31"
string(cidr("10.1.2.3/0").masked()) == "0.0.0.0/0"
string(cidr("10.1.2.3/32")) == "10.1.2.3/32"
isCIDR("10.0.0.0/8") && isCIDR("::/0") && isCIDR("10.1.2.3/32")
isCIDR("10.0.0.0/33")
isCIDR("10.0.0.0/08")
isCIDR("10.0.0.0/+8")
isCIDR("10.0.0.0/-1")
isCIDR("10.0.0.0/")
isCIDR("10.0.0.0")
isCIDR("::ffff:1.2.3.4/120")
isCIDR("fe80::1%eth0/64")
cidr("10.0.0.0") == cidr("10.0.0.0/8")
cidr("10.0.0.0/") == cidr("10.0.0.0/8")
cidr("10.0.0.0/33") == cidr("10.0.0.0/8")
cidr("::/129") == cidr("::/0")
cidr("10.0.0.0/08") == cidr("10.0.0.0/8")
cidr("10.0.0.0/+8") == cidr("10.0.0.0/8")
cidr("10.0.0.0/-1") == cidr("10.0.0.0/8")
cidr("10.0.0.0/x") == cidr("10.0.0.0/8")
cidr("10.0.0.0/99999999999999999999") == cidr("10.0.0.0/8")
cidr("10.0.0.0/1234567890123456789") == cidr("10.0.0.0/8")
cidr("10.0.0.0/0") == cidr("10.0.0.0/0")
cidr("10.0.0/8") == cidr("10.0.0.0/8")
cidr("010.0.0.0/8") == cidr("10.0.0.0/8")
cidr("::ffff:1.2.3.4/120") == cidr("::/0")
cidr("fe80::1%eth0/64") == cidr("::/0")
cidr("fe80::1%/64") == cidr("::/0")
cidr("10.0.0.0/8/8") == cidr("10.0.0.0/8")
cidr("/8") == cidr("10.0.0.0/8")
cidr("10.0.0.0/8") == "10.0.0.0/8"
cidr("10.0.0.0/8") == ip("10.0.0.0")
ip("10.0.0.0") == cidr("10.0.0.0/8")
dyn(cidr("10.0.0.0/8")).containsIP(dyn("10.0.0.1"))
dyn(cidr("10.0.0.0/8")).containsIP(dyn(ip("10.0.0.1")))
dyn(cidr("10.0.0.0/8")).containsIP(dyn(1))
dyn(cidr("10.0.0.0/8")).containsCIDR(dyn("10.0.0.0/16"))
dyn(cidr("10.0.0.0/8")).prefixLength() == 8
[ip("10.0.0.2"), ip("10.0.0.1")].size() == 2
{"a": ip("10.0.0.1")}.a.family() == 4
cidr(@A.model).prefixLength() == 8
ip(@A.model).family() == 4
isIP(@A.model) || isCIDR(@A.model)
optional.ofNonZeroValue(ip("0.0.0.0")).hasValue()
ip("10.0.0.1").isLoopback(1)
cidr("10.0.0.0/8").masked(1)
string(ip("1.2.3.4")) + "/" + string(cidr("1.2.3.4/32").prefixLength()) == string(cidr("1.2.3.4/32"))
ip("10.0.0.1") < ip("10.0.0.2")
dyn(ip("10.0.0.1")) < dyn(ip("10.0.0.2"))
size(dyn(ip("10.0.0.1"))) == 4
dyn(ip("10.0.0.1")) + dyn(ip("10.0.0.1")) == 4
"""


# Kubernetes' url() library: Go's net/url (ParseRequestURI, then Parse), its accessors and errors.
URLS = r"""
url("https://example.com").getHost() == "example.com"
url("https://user:pa%20ss@Example.COM:8443/a%2Fb/c d?x=1&y=2&x=3#frag").getScheme() == "https"
url("https://user:pa%20ss@Example.COM:8443/a%2Fb/c%20d?x=1&y=2&x=3#frag").getHost() == "Example.COM:8443"
url("https://user@Example.COM:8443/a").getHostname() == "Example.COM"
url("https://Example.COM:8443/a").getPort() == "8443"
url("https://Example.COM/a").getPort() == ""
url("https://Example.COM:/a").getPort() == ""
url("https://Example.COM:/a").getHost() == "Example.COM:"
url("HTTPS://example.com").getScheme() == "https"
url("https://[::1]:80/a").getHostname() == "::1"
url("https://[::1]:80/a").getHost() == "[::1]:80"
url("https://[::1]/a").getPort() == ""
url("https://[fe80::1%25eth0]/a").getHostname() == "fe80::1%eth0"
url("https://[fe80::1%eth0]/a").getHostname() == "fe80::1%eth0"
url("https://[1.2.3.4]/a").getHost() == ""
url("https://[::1/a").getHost() == ""
url("https://a[::1]/a").getHost() == ""
url("https://[::1]x/a").getHost() == ""
url("https://[zz]/a").getHost() == ""
url("https://a:b:80/").getHost() == "a:b:80"
url("https://a:b/").getHost() == ""
url("https://a:80x/").getHost() == ""
url("https://a b/").getHost() == ""
url("https://a%20b/").getHost() == "a b"
url("https://a%41b/").getHost() == "aAb"
url("https://a%2/").getHost() == ""
url("https://a%zz/").getHost() == ""
url("https://a{b/").getHost() == ""
url("https://ä.example/").getHost() == "ä.example"
url("https://a@b@c/").getHost() == "c"
url("https://a b@c/").getHost() == "c"
url("https://a%zz@c/").getHost() == "c"
url("https://a:b:c@c/").getHost() == "c"
url("https://example.com/a%2Fb/c%20d").getEscapedPath() == "/a%2Fb/c%20d"
url("https://example.com/a b").getEscapedPath() == "/a%20b"
url("https://example.com/a%20b").getEscapedPath() == "/a%20b"
url("https://example.com/a%zzb").getEscapedPath() == ""
url("https://example.com/ä").getEscapedPath() == "/%C3%A4"
url("https://example.com/a;b,c:d@e$f").getEscapedPath() == "/a;b,c:d@e$f"
url("https://example.com/a%3Bb").getEscapedPath() == "/a%3Bb"
url("https://example.com/%7e").getEscapedPath() == "/~"
url("https://example.com/a'b").getEscapedPath() == "/a%27b"
url("https://example.com/{x}").getEscapedPath() == "/%7Bx%7D"
url("https://example.com").getEscapedPath() == ""
url("https://example.com#x").getEscapedPath() == ""
url("https://example.com/a#x%zz").getEscapedPath() == "/a"
url("https://example.com/a#b#c").getEscapedPath() == "/a"
url("/a/b?c=d").getEscapedPath() == "/a/b"
url("/a/b?c=d").getHost() == ""
url("/a/b?c=d").getScheme() == ""
url("//host/a").getHost() == ""
url("//host/a").getEscapedPath() == "//host/a"
url("///a").getEscapedPath() == "///a"
url("*").getEscapedPath() == "*"
url("a/b").getEscapedPath() == "a/b"
url("example.com").getHost() == "example.com"
url("").getHost() == ""
url(":foo").getHost() == ""
url("1http://a").getHost() == ""
url("http:opaque").getEscapedPath() == ""
url("mailto:a@b.c").getScheme() == "mailto"
url("http://a/\u0001").getHost() == ""
url("http://a/\u007f").getHost() == ""
url("file:///etc/passwd").getEscapedPath() == "/etc/passwd"
url("file:///etc/passwd").getHost() == ""
url("file:/etc/passwd").getEscapedPath() == "/etc/passwd"
url("https://example.com/?").getQuery() == {}
url("https://example.com/?a=1&b=2&a=3").getQuery() == {"a": ["1", "3"], "b": ["2"]}
url("https://example.com/?a=1&b=2&a=3").getQuery()["a"] == ["1", "3"]
url("https://example.com/?a+b=c%20d&e=f+g").getQuery() == {"a b": ["c d"], "e": ["f g"]}
url("https://example.com/?a=1;b=2&c=3").getQuery() == {"c": ["3"]}
url("https://example.com/?a=%zz&c=3").getQuery() == {"c": ["3"]}
url("https://example.com/?=x&&y").getQuery() == {"": ["x"], "y": [""]}
url("https://example.com/?a=1?b=2").getQuery() == {"a": ["1?b=2"]}
url("https://example.com/?a=1#b=2").getQuery() == {"a": ["1"]}
url("https://example.com/?a=1").getQuery().size() == 1
isURL("https://example.com") && isURL("/a") && isURL("*") && isURL("http:opaque")
isURL("example.com")
isURL("")
isURL(":foo")
isURL("https://a b/")
isURL("https://[::1/")
isURL("http://a/#%zz")
isURL("http://a/%zz")
url("https://example.com") == url("https://example.com")
url("https://example.com") == url("HTTPS://example.com")
url("https://example.com/a b") == url("https://example.com/a%20b")
url("https://example.com/a%2fb") == url("https://example.com/a%2Fb")
url("https://example.com:443") == url("https://example.com")
url("https://example.com") != url("https://example.com/")
url("https://example.com") == "https://example.com"
"https://example.com" == url("https://example.com")
url("https://example.com") == null
url("https://example.com") in [url("https://example.com")]
type(url("https://example.com")) == kubernetes.URL
type(url("https://example.com")) == type(url("/a"))
type(quantity("1")) == kubernetes.Quantity
type(semver("1.0.0")) == kubernetes.Semver
dyn(url("https://example.com")).getHost() == "example.com"
dyn("https://example.com").getHost() == "example.com"
url(dyn(1)).getHost() == ""
url(@A.model).getHost() == ""
isURL(@A.model)
url("https://" + device.driver + "/x").getHostname() == device.driver
url("https://example.com")
url("https://example.com").getHost(1)
string(url("https://example.com")) == "https://example.com"
"%s".format([url("https://example.com")]) == "https://example.com"
"""


# cel-go's string.format() (ext strings v2) and Kubernetes' named formats (format.named(), format.<name>(),
# validate() with apimachinery's and kube-openapi's validators and messages).
FORMATS = r"""
"%e".format([1234.5]) == "1.234500\u00d710\u2070\u00b3"
"%e".format([0.000123]) == "1.230000\u00d710\u207b\u2070\u2074"
"%e".format([-0.0]) == "0.000000\u00d710\u2070\u2070"
"%.20e".format([1234.5]) == "       1.234500\u00d710\u2070\u00b3"
"%.65537e".format([1.0]) == "1.000000\u00d710\u2070\u2070"
"%e".format(["NaN"]) == "   NaN"
"%e".format(["-Infinity"]) == "    -\u221e"
"%e".format([5e-324]) == "4.940656\u00d710\u207b\u00b3\u00b2\u2074"
"%f".format([1234567.891]) == "1,234,567.891000"
"%f".format([-0.0]) == "0.000000"
"%f".format([-0.0000001]) == "-0.000000"
"%.0f".format([-0.4]) == "-0"
"%.0f".format([1234.5]) == "1,234"
"%.0f".format([2.5]) == "2"
"%.20f".format([0.1]) == "0.10000000000000000555"
"%.256f".format([1.5]) == "1.5"
"%.257f".format([2.5]) == "2.5"
"%.300f".format([1.0]) == "1.00000000000000000000000000000000000000000000"
"%f".format(["Infinity"]) == "\u221e"
"%f".format([1.0/0.0]) == "\u221e"
"%f".format(["nan"]) == ""
"%f".format([dyn("x")]) == ""
"%f".format([1e21]) == "1,000,000,000,000,000,000,000.000000"
"%s".format([[1.5, "a", b"b", null, true, 2u, -3, [1], {"k": 1}, double("Inf"), double("NaN"), timestamp(0), duration("1s"), int]]) == "[1.500000, \"a\", b\"b\", null, true, 2, -3, [1], {\"k\":1}, \"+Inf\", \"NaN\", timestamp(\"1970-01-01T00:00:00Z\"), duration(\"1s\"), int]"
"%s".format([{2: "a", 1: "b"}]) == "{1:\"b\", 2:\"a\"}"
"%s".format([{"b": 1, "a": 2, "ab": 4}]) == "{\"a\":2, \"ab\":4, \"b\":1}"
"%s".format([{true: 1, false: 2}]) == "{false:2, true:1}"
"%s".format([{"a": 1, 2: "b"}]) == "{\"a\":1, 2:\"b\"}"
"%s".format([{1.5: 1}]) == ""
"%s".format([{"\u00e9": 1, "z": 2}]) == "{\"z\":2, \"\u00e9\":1}"
"%s".format([["a\"b\n", b"\x01", "\u00e9\u0001"]]) == "[\"a\\\"b\\n\", b\"\\x01\", \"\u00e9\\x01\"]"
"%s".format([[b"a\xff"]]) == ""
"%s".format([b"\xff"]) == ""
"%s".format([1e21]) == "1e+21"
"%s".format([-0.0]) == "-0"
"%s".format([[-0.0, 1e-7]]) == "[-0.000000, 0.000000]"
"%s".format([timestamp("2024-01-01T00:00:00+01:00")]) == "2024-01-01T00:00:00+01:00"
"%s".format([[timestamp("2024-01-01T00:00:00+01:00")]]) == "[timestamp(\"2024-01-01T00:00:00+01:00\")]"
"%s".format([duration("1.5s")]) == "1.5s"
"%s".format([type(1)]) == "int"
"%s".format([optional.of(1)]) == ""
"%s".format([dyn(optional.of(1))]) == ""
"%s".format([[dyn(optional.none())]]) == ""
"%s".format([quantity("1")]) == ""
"%s".format([[ip("1.2.3.4")]]) == ""
"%d".format([dyn(1.5)]) == ""
"%d".format([true]) == ""
"%d".format(["1"]) == ""
"%d".format([-9223372036854775808]) == "-9223372036854775808"
"%x".format([-255]) == "-ff" && "%X".format([-255]) == "-FF" && "%X".format([b"\xff"]) == "FF" && "%x".format(["\u00e9"]) == "c3a9"
"%x".format([18446744073709551615u]) == "ffffffffffffffff"
"%x".format([1.5]) == ""
"%o".format([-8]) == "-10" && "%b".format([-5]) == "-101" && "%b".format([true]) == "1" && "%b".format([2u]) == "10"
"%o".format([1.5]) == ""
"%b".format([1.5]) == ""
"%e".format([1]) == ""
"%f".format([1u]) == ""
"%d %d".format([1]) == ""
"%d".format([1, 2]) == ""
"x".format([dyn("a")]) == ""
"%".format([1]) == ""
"%".format([]) == ""
"%5d".format([1]) == ""
"%.d".format([1]) == ""
"%.99999999999999999999f".format([1.0]) == ""
"%.2".format([1.0]) == ""
"%.-1f".format([1.0]) == ""
"%\u00e9".format([1]) == ""
"%z".format([1]) == ""
"%s".format([]) == ""
"%s".format(dyn([])) == ""
"%s %s".format(dyn(["a"])) == ""
"%s".format(dyn([1, 2])) == "1"
"%s %s".format(["a"] + ["b"]) == "a b"
"%.2s|%.2d|%.3x|%.3o|%.3b".format(["abc", 1, "a", 8, 8]) == "abc|1|61|10|1000"
"%d%%|%%%d".format([1, 2]) == "1%|%2"
"%s".format([[1, "a"]]) == "[1, \"a\"]"
"%s".format([device.driver]) == device.driver
"%d".format([device.attributes["dra.example.com"].numa]) == "1"
"%s".format([dyn(device.attributes["dra.example.com"].model)]) == "h100-sxm"
"%d".format([dyn(device.attributes["dra.example.com"].numa)]) == "1"
"%s".format([device.attributes]) == ""
device.driver.format([]) == device.driver
"%s-%s".format([device.driver, [1, "x"]]) == "dra.example.com-[1, \"x\"]"
format.dns1123Label().validate("abc") == optional.none()
format.dns1123Label().validate("a.b").value() == ["must not contain dots"]
format.dns1123Label().validate("ABC").value()[0].startsWith("a lowercase RFC 1123 label")
format.dns1123Label().validate("ABC") == optional.of(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])
format.dns1123Label().validate("a" + "b".repeat(63)).value().size() == 1
format.dns1123Label().validate("").value().size() == 1
format.dns1123Subdomain().validate("a.b-c.d") == optional.none()
format.dns1123Subdomain().validate("-a").value().size() == 1
format.dns1035Label().validate("1abc").hasValue() && !format.dns1035Label().validate("abc").hasValue()
format.qualifiedName().validate("example.com/MyName") == optional.none()
format.qualifiedName().validate("/MyName").value()
format.qualifiedName().validate("a/b/c").value()
format.qualifiedName().validate("Example.com/").value()
format.qualifiedName().validate("-x").value()
format.dns1123LabelPrefix().validate("abc-") == optional.none()
format.dns1123LabelPrefix().validate("ab.-").value()
format.dns1123SubdomainPrefix().validate("abc.-") == optional.none()
format.dns1035LabelPrefix().validate("a-") == optional.none()
format.dns1035LabelPrefix().validate("-").value()
format.labelValue().validate("") == optional.none()
format.labelValue().validate("a_b.C-1") == optional.none()
format.labelValue().validate("-a").value()
format.uri().validate("https://example.com") == optional.none()
format.uri().validate("example.com").value() == ["parse \"example.com\": invalid URI for request"]
format.uuid().validate("123e4567-e89b-12d3-a456-426614174000") == optional.none()
format.uuid().validate("123E4567E89B12D3A456426614174000") == optional.none()
format.uuid().validate("123e4567-e89b-12d3-a456-42661417400").value() == ["does not match the UUID format"]
format.byte().validate("aGVsbG8=") == optional.none()
format.byte().validate("aGVsbG8").value() == ["invalid base64"]
format.byte().validate("").value() == ["invalid base64"]
format.date().validate("2024-02-29") == optional.none()
format.date().validate("2023-02-29").value() == ["invalid date"]
format.date().validate("2024-1-01").value() == ["invalid date"]
format.datetime().validate("2024-02-29T12:00:00Z") == optional.none()
format.datetime().validate("2024-02-29t12:00:00.123+01:00") == optional.none()
format.datetime().validate("2024-02-29T24:00:00Z").value() == ["invalid datetime"]
format.datetime().validate("2024-02-29T12:00:00").value() == ["invalid datetime"]
format.datetime().validate("2024-02-29").value() == ["invalid datetime"]
format.datetime().validate("2024-02-29T12:00:00ZT1").value() == ["invalid datetime"]
format.named("dns1123Label").hasValue() && !format.named("nope").hasValue()
format.named("uuid").value().validate("x").hasValue()
format.named("dns1123Label").value() == format.dns1123Label()
format.named("dns1123Label").value() == format.dns1035Label()
format.dns1123Label() == "x"
format.dns1123Label() == null
type(format.dns1123Label()) == type(format.uri())
format.named(device.driver).hasValue()
format.dns1123Label().validate(device.driver).hasValue()
format.dns1123Label()
format.named(1)
format.dns1123Label(1)
format.nope()
format.dns1123Label().validate(1)
dyn(format.dns1123Label()).validate("a") == optional.none()
dyn("x").validate("a") == optional.none()
"""


MACRO_LISTS = ["[1, 2, 3]", "[]", "[0, -1, 5]", '["a", "bb", ""]', "[1u, 2u]", "[1.5, -0.5]", "[true, false]",
               "@A.model.split(\"-\")", "[@A.numa, @A.index]", "lists.range(5)"]


def expand(expr):
    return expr.replace("@AO", AO).replace("@A", A).replace("@CO", CO).replace("@C", C)


# -------------------------------------------------------------------------------------- random trees

ATTR_NAMES = ["model", "numa", "healthy", "driverVersion", "index", "family", "memGiB", "empty", "uuid", "nosuch"]
OATTR_NAMES = ["zone", "rack", "enabled", "fw", "nosuch"]
CAP_NAMES = ["memory", "cores", "power", "fraction", "big", "nosuch"]


class Gen:
    def __init__(self, rng):
        self.r = rng

    def pick(self, xs):
        return self.r.choice(xs)

    def attr(self):
        r = self.r.random()
        if r < 0.7:
            name = self.pick(ATTR_NAMES)
            base = A
        else:
            name = self.pick(OATTR_NAMES)
            base = AO
        style = self.r.random()
        if style < 0.6:
            return "%s.%s" % (base, name)
        if style < 0.9:
            return '%s["%s"]' % (base, name)
        return 'device.attributes.%s' % name if self.r.random() < 0.5 else "%s.%s" % (base, name)

    def cap(self):
        name = self.pick(CAP_NAMES)
        base = C if self.r.random() < 0.85 else CO
        return "%s.%s" % (base, name) if self.r.random() < 0.7 else '%s["%s"]' % (base, name)

    def lit(self, t):
        r = self.r
        if t == "int":
            return self.pick(["0", "1", "-1", "2", "7", "42", "-100", "9223372036854775807", "-9223372036854775808",
                              "0x10", str(r.randint(-1000, 1000))])
        if t == "uint":
            return self.pick(["0u", "1u", "2u", "18446744073709551615u", "9223372036854775808u", "%du" % r.randint(0, 500)])
        if t == "double":
            return self.pick(["0.0", "1.0", "-1.5", "0.5", "1e10", "-0.0", "2.5", "1e308", "%.3f" % r.uniform(-100, 100)])
        if t == "string":
            return self.pick(['""', '"a"', '"h100-sxm"', '"Hopper"', '"dra.example.com"', '"zone-a"', '"1.2.3"', '"é"',
                              '"A100"', '"x-y-z"', '"  pad "', "'q'"])
        if t == "bool":
            return self.pick(["true", "false"])
        if t == "semver":
            return 'semver("%s")' % self.pick(["1.2.3", "0.9.0", "2.0.0-rc.1", "1.10.0", "0.0.0", "1.2.3-alpha"])
        if t == "quantity":
            return 'quantity("%s")' % self.pick(["1", "0", "80Gi", "40960Mi", "500m", "1.5", "1k", "1Ki", "-2", "100M"])
        if t == "list":
            return self.pick(["[1, 2, 3]", '["a", "b"]', "[]", "[1.5]", "[true]", "[1u, 2u]"])
        return "null"

    def expr(self, t, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            if t in ("int", "string", "bool", "dyn") and r.random() < 0.45:
                return self.attr()
            if t == "quantity" and r.random() < 0.6:
                return self.cap()
            if t == "semver" and r.random() < 0.5:
                return "%s.%s" % (A if r.random() < 0.7 else AO, self.pick(["driverVersion", "fw", "model"]))
            if t == "dyn":
                t = self.pick(["int", "uint", "double", "string", "bool", "list"])
            return self.lit(t)
        d = depth - 1
        e = self.expr
        if t == "bool":
            k = r.randrange(22)
            if k == 0:
                return "%s && %s" % (e("bool", d), e("bool", d))
            if k == 1:
                return "%s || %s" % (e("bool", d), e("bool", d))
            if k == 2:
                return "!%s" % e("bool", d)
            if k in (3, 4):
                ty = self.pick(["int", "uint", "double", "string", "dyn"])
                op = self.pick(["==", "!=", "<", "<=", ">", ">="])
                ty2 = ty if r.random() < 0.6 else self.pick(["int", "uint", "double", "string", "dyn"])
                return "%s %s %s" % (e(ty, d), op, e(ty2, d))
            if k == 5:
                return "(%s)" % e("bool", d)
            if k == 6:
                return "%s ? %s : %s" % (e("bool", d), e("bool", d), e("bool", d))
            if k == 7:
                return "%s.%s(%s)" % (e("string", d), self.pick(["startsWith", "endsWith", "contains", "matches"]),
                                      e("string", d) if r.random() < 0.5 else self.pick(['"^h"', '"[0-9]+"', '"a|b"', '".*"', '"-"']))
            if k == 8:
                v = self.pick(["x", "y"])
                return "%s.%s(%s, %s)" % (self.lit("list") if r.random() < 0.5 else self.pick(["device.attributes", A, C, "lists.range(4)"]),
                                          self.pick(["all", "exists", "exists_one"]), v,
                                          self.pick(["%s == %s" % (v, e("dyn", d)), "%s > 0" % v, "%s.size() > 0" % v, "true",
                                                     "%s != null" % v, e("bool", d)]))
            if k == 9:
                return "has(%s)" % self.pick(["%s.%s" % (A, self.pick(ATTR_NAMES)), "%s.%s" % (AO, self.pick(OATTR_NAMES)),
                                              "device.attributes.%s" % self.pick(["dra", "x", "y"]),
                                              "%s.%s" % (C, self.pick(CAP_NAMES)), "device.driver"])
            if k == 10:
                return "%s in %s" % (e("dyn", d), self.pick(["[1, 2, 3]", '["a", "h100-sxm"]', A, "device.attributes", '{"a": 1}', "[]"]))
            if k == 11:
                q = e("quantity", d)
                return self.pick(["%s.isGreaterThan(%s)" % (q, e("quantity", d)), "%s.isLessThan(%s)" % (q, e("quantity", d)),
                                  "%s.compareTo(%s) %s 0" % (q, e("quantity", d), self.pick(["<", "==", ">="])),
                                  "%s.isInteger()" % q, "%s == %s" % (q, e("quantity", d)), "%s.sign() == %s" % (q, e("int", d))])
            if k == 12:
                s = e("semver", d)
                return self.pick(["%s.isGreaterThan(%s)" % (s, e("semver", d)), "%s.isLessThan(%s)" % (s, e("semver", d)),
                                  "%s.compareTo(%s) == %s" % (s, e("semver", d), e("int", d)), "%s == %s" % (s, e("semver", d)),
                                  "%s.major() >= %s" % (s, e("int", d))])
            if k == 13:
                return "isSemver(%s)" % e("string", d) if r.random() < 0.5 else "isQuantity(%s)" % e("string", d)
            if k == 14:
                return "cel.bind(v, %s, %s)" % (e("dyn", d), self.pick(["v == v", "v != null", "type(v) == int", "has(v.x)",
                                                                      "v == %s" % e("dyn", d)]))
            if k == 15:
                return "%s.?%s.%s" % (self.pick([A, AO]), self.pick(ATTR_NAMES), self.pick(["hasValue()", "orValue(%s) == %s" % (e("dyn", d), e("dyn", d))]))
            if k == 16:
                return "sets.%s(%s, %s)" % (self.pick(["contains", "equivalent", "intersects"]), self.lit("list"), self.lit("list"))
            if k == 17:
                return "%s.size() %s %s" % (self.pick([self.lit("list"), e("string", d), A, "device.attributes"]),
                                            self.pick(["==", ">", "<="]), e("int", d))
            if k == 18:
                return "type(%s) == %s" % (e("dyn", d), self.pick(["int", "uint", "double", "string", "bool", "list", "map"]))
            if k == 19:
                return "dyn(%s)" % e("bool", d)
            return e("bool", 0)
        if t == "int":
            k = r.randrange(12)
            if k < 5:
                return "%s %s %s" % (e("int", d), self.pick(["+", "-", "*", "/", "%"]), e("int", d))
            if k == 5:
                return "-%s" % e("int", d)
            if k == 6:
                return "int(%s)" % e(self.pick(["uint", "double", "string", "int"]), d)
            if k == 7:
                return "%s.size()" % e("string", d)
            if k == 8:
                return "%s.indexOf(%s)" % (e("string", d), e("string", d))
            if k == 9:
                return "%s.asInteger()" % e("quantity", d)
            if k == 10:
                return "(%s)" % e("int", d)
            return "%s.%s()" % (e("semver", d), self.pick(["major", "minor", "patch"]))
        if t == "uint":
            k = r.randrange(5)
            if k < 3:
                return "%s %s %s" % (e("uint", d), self.pick(["+", "-", "*", "/", "%"]), e("uint", d))
            return "uint(%s)" % e(self.pick(["int", "double", "string"]), d)
        if t == "double":
            k = r.randrange(5)
            if k < 3:
                return "%s %s %s" % (e("double", d), self.pick(["+", "-", "*", "/"]), e("double", d))
            if k == 3:
                return "%s.asApproximateFloat()" % e("quantity", d)
            return "double(%s)" % e(self.pick(["int", "uint", "string"]), d)
        if t == "string":
            k = r.randrange(10)
            if k < 2:
                return "%s + %s" % (e("string", d), e("string", d))
            if k == 2:
                return "%s.%s()" % (e("string", d), self.pick(["lowerAscii", "upperAscii", "trim"]))
            if k == 3:
                return "%s.substring(%s)" % (e("string", d), e("int", d))
            if k == 4:
                return "%s.replace(%s, %s)" % (e("string", d), e("string", d), e("string", d))
            if k == 5:
                return "string(%s)" % e(self.pick(["int", "uint", "double", "bool", "string"]), d)
            if k == 6:
                return "%s.charAt(%s)" % (e("string", d), e("int", d))
            if k == 7:
                return '%s.split(%s).join("+")' % (e("string", d), e("string", d))
            if k == 8:
                return '%s.find("[a-z0-9]+")' % e("string", d)
            return "%s ? %s : %s" % (e("bool", d), e("string", d), e("string", d))
        if t == "quantity":
            k = r.randrange(3)
            if k == 0:
                return "%s.add(%s)" % (e("quantity", d), e("quantity", d) if r.random() < 0.5 else e("int", d))
            if k == 1:
                return "%s.sub(%s)" % (e("quantity", d), e("quantity", d) if r.random() < 0.5 else e("int", d))
            return "quantity(%s)" % e("string", d)
        if t == "semver":
            return "semver(%s)" % e("string", d)
        if t == "dyn":
            return e(self.pick(["int", "uint", "double", "string", "bool"]), depth)
        return self.lit(t)


# --------------------------------------------------------------------------------------- mutations

TOKENS = ["(", ")", "[", "]", "{", "}", ".", ",", ":", "?", "!", "&&", "||", "==", "+", "-", "in", "1", '"', "'",
          "x", " ", "@", "#", "\\", "`", "?.", ".?", "=", "&", "|", "<", ">"]


def mutate(rng, expr):
    k = rng.randrange(4)
    if len(expr) < 2:
        return expr + rng.choice(TOKENS)
    i = rng.randrange(len(expr))
    if k == 0:
        return expr[:i] + expr[i + 1:]
    if k == 1:
        return expr[:i] + rng.choice(TOKENS) + expr[i:]
    if k == 2:
        return expr[:i] + rng.choice(TOKENS) + expr[i + 1:]
    return expr[:i]


# ------------------------------------------------------------------------------------------- corpus


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--random", type=int, default=2500, help="number of random expression trees")
    ap.add_argument("--mutations", type=int, default=700)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = []

    def add(family, expr, devices):
        for i, d in enumerate(devices):
            cases.append({"id": "%s-%d" % (family, len(cases)), "expr": expr, "device": d})

    hand = [expand(l) for l in HAND.split("\n") if l.strip() != ""]
    # The multi-line literal cases.
    hand += ['"""triple "q" """ == \'triple "q" \'', '"a\nb" == "a"', '"""a\nb""" == "a\\nb"', "1 +\n  2 == 3", "device.driver ==\n\n  1", "\n\n?"]
    for e in hand:
        add("hand", e, MAIN_DEVICES)
    # Every device, including the ones whose attributes fail to convert.
    for e in ['true', 'device.driver == "dra.example.com"', A + '.model == "m"', "1 == 1", "nosuch"]:
        add("devices", e, DEVICES)
    # Macros over several lists and predicates.
    for lst in MACRO_LISTS:
        for m in ["all", "exists", "exists_one"]:
            for pred in ["x > 0", "x == x", "x != 1", "size([x]) == 1", "type(x) == int", "x"]:
                add("macro", expand("%s.%s(x, %s)" % (lst, m, pred)), [GPU])
        for m in ["map(x, x)", "filter(x, x != 0)", "map(x, x != 0, x)", "map(x, [x]).size()"]:
            add("macro", expand("%s.%s == %s" % (lst, m, lst)), [GPU])
    # Timestamps and durations, hand-written and combined (expected values computed here).
    for e in [expand(l) for l in TIME.split("\n") if l.strip() != ""]:
        add("time", e, [GPU])
    for e in time_combinations():
        add("time", e, [GPU])
    for e in [expand(l) for l in NET.split("\n") if l.strip() != ""]:
        add("net", e, [GPU])
    for e in [expand(l) for l in URLS.split("\n") if l.strip() != ""]:
        add("url", e, [GPU])
    for e in [expand(l) for l in FORMATS.split("\n") if l.strip() != ""]:
        add("format", e, [GPU])
    # Addresses and prefixes in text from the device's attributes, on every device.
    for e in ['isIP(%s.model)' % A, 'cidr("10.0.0.0/8").containsIP(%s.model)' % A, 'ip(%s.uuid).family() == 6' % A]:
        add("net", e, MAIN_DEVICES)
    g = Gen(rng)
    for _ in range(args.random):
        e = g.expr("bool", rng.randint(1, 4))
        add("rand", e, [rng.choice(MAIN_DEVICES)])
    # Random trees of other result types (compile error: not bool; or dyn results at runtime).
    for _ in range(150):
        t = rng.choice(["int", "string", "double", "dyn", "quantity", "semver"])
        add("randtype", g.expr(t, rng.randint(0, 3)), [GPU])
    valid = hand + [c["expr"] for c in cases if c["id"].startswith("rand-")][:400]
    for _ in range(args.mutations):
        e = mutate(rng, rng.choice(valid))
        if rng.random() < 0.3:
            e = mutate(rng, e)
        add("syntax", e, [GPU])
    print(json.dumps({"devices": DEVICE_TABLE}, ensure_ascii=False))
    for c in cases:
        print(json.dumps(c, ensure_ascii=False, sort_keys=False))


if __name__ == "__main__":
    main()
