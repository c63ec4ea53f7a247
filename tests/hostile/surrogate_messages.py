"""Makes its functions' answers hold lone surrogates, which no UTF-8 file can hold: an error message
(the report says what a function raised) and the repr of what it returns (the report describes
it). A report stage that writes them as they are crashes after the whole class was graded."""


def mul_backward(grad, a, b):
    raise ValueError("broken \ud800 here")


class _Odd:
    def __repr__(self):
        return "odd \udcff\ud800"


def mm_backward(grad, a, b):
    return _Odd()
