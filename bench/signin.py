"""A member for the in-process benchmarks: pages are behind sign-in."""

from scorekeeper import families
from scorekeeper.accounts import service as account_service
from scorekeeper.extensions import db


def signed_in_client(app):
    """A test client signed in as a member of the instance's family (made if needed)."""
    with app.app_context():
        family = families.sole_family()
        member = account_service.family_members(family)[0] if account_service.has_members() else None
        if member is None:
            member = account_service.create_family(family.name, "bench", "a bench password")
        member_id = member.get_id()
        db.session.remove()
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"], session["_fresh"] = member_id, True
    return client
