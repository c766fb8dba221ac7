"""Starting the app: instance folder, generated secret key, database from the environment."""

import os
import stat

import sqlalchemy as sa

from scorekeeper import create_app
from tests.pages import text_of as page_text


def _plain_app(monkeypatch, instance, **env):
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(instance))
    monkeypatch.delenv("SCOREKEEPER_SECRET_KEY", raising=False)
    monkeypatch.delenv("SCOREKEEPER_DATABASE_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return create_app()


def test_first_start_creates_database_and_keeps_a_private_secret_key(monkeypatch, tmp_path):
    instance = tmp_path / "instance"
    app = _plain_app(monkeypatch, instance)
    key_file = instance / "secret_key"
    assert key_file.read_text() == app.config["SECRET_KEY"]
    assert len(app.config["SECRET_KEY"]) >= 32
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert (instance / "scorekeeper.sqlite").exists()
    tables = sa.inspect(sa.create_engine(f"sqlite:///{instance / 'scorekeeper.sqlite'}")).get_table_names()
    assert {"family", "player", "game", "seat", "game_round", "result"} <= set(tables)

    again = _plain_app(monkeypatch, instance)
    assert again.config["SECRET_KEY"] == app.config["SECRET_KEY"], "restarts must keep sessions valid"


def test_environment_chooses_database_and_secret(monkeypatch, tmp_path):
    url = f"sqlite:///{tmp_path / 'elsewhere.sqlite'}"
    app = _plain_app(
        monkeypatch, tmp_path / "inst",
        SCOREKEEPER_DATABASE_URL=url, SCOREKEEPER_SECRET_KEY="from-env-0123456789abcdef0123456789",
    )
    assert app.config["SQLALCHEMY_DATABASE_URI"] == url
    assert app.config["SECRET_KEY"] == "from-env-0123456789abcdef0123456789"
    assert (tmp_path / "elsewhere.sqlite").exists()
    assert not (tmp_path / "inst" / "secret_key").exists()


def test_instance_config_file_is_read(monkeypatch, tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "config.py").write_text("SECRET_KEY = 'from-config-file-0123456789abcdef'\n")
    app = _plain_app(monkeypatch, instance)
    assert app.config["SECRET_KEY"] == "from-config-file-0123456789abcdef"


def test_csrf_is_on_unless_a_test_turns_it_off(monkeypatch, tmp_path):
    app = _plain_app(monkeypatch, tmp_path / "instance")
    response = app.test_client().post("/games/new", data={"variant": "family-7", "new_players": "A, B, C"})
    assert response.status_code == 400
    assert "reload it and try again" in page_text(response)


def test_home_and_friendly_not_found(client):
    home = client.get("/")
    assert home.status_code == 200
    assert "No game in progress" in page_text(home)
    missing = client.get("/games/999")
    assert missing.status_code == 404
    assert "There is nothing here" in page_text(missing)
    assert client.get("/healthz").data == b"ok"


def test_a_family_server_hashes_new_passwords_with_scrypt(monkeypatch, tmp_path):
    """The tests choose a cheaper hash (``PASSWORD_HASH``) for speed; a real server never does."""
    from scorekeeper.accounts.service import hashed

    app = _plain_app(monkeypatch, tmp_path / "inst")
    with app.app_context():
        assert hashed("a long enough password").startswith("scrypt:")
