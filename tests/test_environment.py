"""pyproject.toml and environment.yml must list the same packages with the same version bounds.

pip users get their packages from pyproject.toml, conda users from environment.yml; when one list
gains a package the other does not, one kind of user gets an ImportError. This test fails on drift.
"""

import re
import sys
from pathlib import Path

import yaml  # pyyaml, in the [test] extra

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

# PyPI name -> conda-forge name, where they differ.
PYPI_TO_CONDA = {
    "graphviz": "python-graphviz",
}
# conda entries with no PyPI counterpart in pyproject.toml, and why.
CONDA_ONLY = {
    "python": "the interpreter (requires-python in pyproject.toml)",
    "pip": "installs the pip: section",
    "graphviz": "Graphviz's `dot` program, which PyPI cannot provide",
}
# pip: entries in environment.yml that are not packages.
PIP_SECTION_NON_PACKAGES = {"-e ."}

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;#]*?)\s*(?:;.*)?(?:#.*)?$")


def normalize(name: str) -> str:
    """PEP 503 normalisation, which also matches conda-forge's spelling (ml_dtypes == ml-dtypes)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse(requirement: str) -> "tuple[str, str]":
    """'numpy >= 1.24 ; python_version<"3.11"' -> ('numpy', '>=1.24'). Markers are dropped: conda has none."""
    match = REQUIREMENT.match(requirement)
    assert match, f"cannot parse requirement {requirement!r}"
    name, _extras, spec = match.groups()
    return normalize(name), spec.replace(" ", "")


def pyproject_requirements() -> "dict[str, str]":
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    found: "dict[str, str]" = {}
    for line in lines:
        name, spec = parse(line)
        if name == "glasstorch":  # an extra that includes another extra
            continue
        assert found.get(name, spec) == spec, f"{name} has two version bounds in pyproject.toml"
        found[name] = spec
    return found


def environment_requirements() -> "dict[str, str]":
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert env["name"] == "glasstorch"
    assert env["channels"] == ["conda-forge"]
    found: "dict[str, str]" = {}
    for entry in env["dependencies"]:
        if isinstance(entry, dict):  # the pip: section
            for line in entry["pip"]:
                if line.strip() not in PIP_SECTION_NON_PACKAGES:
                    name, spec = parse(line)
                    found[name] = spec
        else:
            name, spec = parse(str(entry))
            found[name] = spec
    return found


def test_environment_yml_installs_the_package_itself():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pip_sections = [entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict)]
    assert any("-e ." in section for section in pip_sections), "environment.yml must pip install -e ."


def test_python_versions_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert environment_requirements()["python"] == project["requires-python"]


def test_pyproject_and_environment_list_the_same_packages():
    wanted = {PYPI_TO_CONDA.get(name, name): spec for name, spec in pyproject_requirements().items()}
    have = {name: spec for name, spec in environment_requirements().items() if name not in CONDA_ONLY}
    missing_from_conda = sorted(set(wanted) - set(have))
    missing_from_pyproject = sorted(set(have) - set(wanted))
    assert not missing_from_conda, f"in pyproject.toml but not in environment.yml: {missing_from_conda}"
    assert not missing_from_pyproject, f"in environment.yml but not in pyproject.toml: {missing_from_pyproject}"
    different = {name: (wanted[name], have[name]) for name in wanted if wanted[name] != have[name]}
    assert not different, f"version bounds differ (pyproject.toml, environment.yml): {different}"


def test_conda_only_entries_are_present():
    have = environment_requirements()
    assert set(CONDA_ONLY) <= set(have), f"environment.yml lacks {sorted(set(CONDA_ONLY) - set(have))}"
