"""The one-line call syntax: read as data, never evaluated."""

from __future__ import annotations

import pytest

from tauplay.core.callsyntax import CallSyntaxError, ParsedCall, format_call, parse_call


def test_python_form_with_keywords():
    assert parse_call('get_user_details(user_id="mia_li_3668")') == ParsedCall(
        "get_user_details", {"user_id": "mia_li_3668"})


def test_nested_literals_and_json_names():
    call = parse_call('book(flights=[{"flight_number": "HAT001", "date": "2024-05-20"}], n=-2, x=1.5, '
                      'ok=true, no=False, none=null, t=(1, 2))')
    assert call.arguments == {"flights": [{"flight_number": "HAT001", "date": "2024-05-20"}], "n": -2, "x": 1.5,
                              "ok": True, "no": False, "none": None, "t": [1, 2]}


def test_bare_name_and_empty_parentheses():
    assert parse_call("list_all_airports") == ParsedCall("list_all_airports", {})
    assert parse_call("  list_all_airports()  ") == ParsedCall("list_all_airports", {})


def test_positional_arguments_follow_the_parameter_order():
    call = parse_call('search_direct_flight("JFK", "LAX", date="2024-05-20")', ["origin", "destination", "date"])
    assert call.arguments == {"origin": "JFK", "destination": "LAX", "date": "2024-05-20"}
    with pytest.raises(CallSyntaxError, match="name the arguments"):
        parse_call('get_user_details("x")')
    with pytest.raises(CallSyntaxError, match="at most 1"):
        parse_call('get_user_details("x", "y")', ["user_id"])
    with pytest.raises(CallSyntaxError, match="given twice"):
        parse_call('get_user_details("x", user_id="y")', ["user_id"])


@pytest.mark.parametrize("line", [
    'f(x=__import__("os").system("touch /tmp/pwned"))',
    "f(x=open('/etc/passwd'))",
    "f(x=1+2)",
    "f(x=y)",
    "f(x=[i for i in range(3)])",
    "f(**{'a': 1})",
    "f(x=lambda: 1)",
    "os.system('ls')",
    "f(x=b'bytes')",
])
def test_anything_but_literals_is_refused(line, tmp_path):
    with pytest.raises(CallSyntaxError):
        parse_call(line)


def test_refused_code_is_not_run(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    with pytest.raises(CallSyntaxError):
        parse_call(f"f(x=open({str(marker)!r}, 'w'))")
    assert not marker.exists()


def test_syntax_errors_name_the_column():
    with pytest.raises(CallSyntaxError) as err:
        parse_call('get_user_details(user_id="mia"')
    assert err.value.column is not None
    with pytest.raises(CallSyntaxError, match="empty"):
        parse_call("   ")
    with pytest.raises(CallSyntaxError, match="expected name"):
        parse_call("42")


def test_json_forms():
    assert parse_call('{"name": "get_user_details", "arguments": {"user_id": "a"}}') == ParsedCall(
        "get_user_details", {"user_id": "a"})
    assert parse_call('{"name": "g", "kwargs": {"a": 1}}').arguments == {"a": 1}
    assert parse_call('{"name": "g", "arguments": "{\\"a\\": 2}"}').arguments == {"a": 2}
    assert parse_call('{"type": "function", "function": {"name": "g", "arguments": "{}"}}') == ParsedCall("g", {})


@pytest.mark.parametrize("line, message", [
    ('{"name": "g", "arguments": ', "not valid JSON"),
    ('{"arguments": {}}', "needs a 'name'"),
    ('{"name": "g", "arguments": [1]}', "must be an object"),
    ('{"name": "g", "arguments": "{oops"}', "not valid JSON"),
    ('{"name": "g", "extra": 1}', "unexpected key"),
])
def test_bad_json_calls(line, message):
    with pytest.raises(CallSyntaxError, match=message):
        parse_call(line)


def test_format_call_round_trips():
    args = {"reservation_id": "ABC123", "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
            "amount": 12.5, "insurance": None, "ok": True, "text": 'quote " and é'}
    line = format_call("update", args)
    assert parse_call(line) == ParsedCall("update", args)


def test_prose_in_the_call_line_is_told_what_a_call_looks_like():
    """Was (tmux, playing the agent): "One extra bag costs $50 on your card ending 0636 ..." typed into the call
    line got Python's "leading zeros in decimal integer literals are not permitted; use an 0o prefix"."""
    with pytest.raises(CallSyntaxError) as e:
        parse_call("One extra bag costs $50 on your card ending 0636, for 3 bags in total. Shall I go ahead?")
    assert "tool's name and its arguments in brackets" in str(e.value) and "octal" not in str(e.value)
    with pytest.raises(CallSyntaxError, match="not a call: invalid syntax|not a call: '\\(' was never closed"):
        parse_call("get_user_details(user_id='x'")  # a call begun: Python's own words say what is wrong
