"""``[tool.msnb]`` in the nearest pyproject.toml: select, ignore, and clear
errors for unknown keys and codes."""

import pytest

from msnb.analyzer.config import Config, ConfigError, config_for, find_pyproject, validate_codes


def write(folder, text):
    (folder / "pyproject.toml").write_text(text)
    return folder / "pyproject.toml"


def test_nearest_pyproject_upward(tmp_path):
    top = write(tmp_path, '[tool.msnb]\nignore = ["MSN301"]\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_pyproject(deep / "nb.ipynb") == top
    assert config_for(deep / "nb.ipynb") == Config(None, ("MSN301",), top)
    near = write(tmp_path / "a", '[project]\nname = "x"\n')  # nearer, without [tool.msnb]
    assert config_for(deep) == Config(None, (), near)


def test_names_map_to_codes_and_duplicates_go():
    assert validate_codes(["inplace-method", "MSN201", "msn101"], where="x") == ("MSN201", "MSN101")


def test_unknown_code_names_the_file_and_the_code(tmp_path):
    path = write(tmp_path, '[tool.msnb]\nselect = ["MSN101", "MSN777"]\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.msnb\] select: unknown rule code\(s\) 'MSN777'"):
        config_for(tmp_path)
    assert str(path) in str(pytest.raises(ConfigError, config_for, tmp_path).value)


@pytest.mark.parametrize("body, message", [
    ('selct = ["MSN101"]', r"unknown key\(s\) in \[tool.msnb\]: selct \(known: select, ignore\)"),
    ('ignore = "MSN101"', "ignore must be a list of rule codes"),
    ("ignore = [1]", "rule codes must be strings"),
])
def test_bad_tables(tmp_path, body, message):
    write(tmp_path, "[tool.msnb]\n" + body + "\n")
    with pytest.raises(ConfigError, match=message):
        config_for(tmp_path)


def test_invalid_toml(tmp_path):
    write(tmp_path, "[tool.msnb\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        config_for(tmp_path)
