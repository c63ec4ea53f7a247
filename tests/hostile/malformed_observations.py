"""Replaces the collecting cells with its own, which write observations that are not observations:
an array with no shape and no data, then text that is not JSON."""
import os


def __glasstorch_collect__(exercise_id, seed, path, namespace):
    with open(path, "w") as observations:
        observations.write('{"__ndarray__": "float32"}\n{not json\n')


globals()["__glasstorch_collect__"] = __glasstorch_collect__
