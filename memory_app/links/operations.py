"""The service's link operations: a memory's links, a person adding or removing one
(undoable, as any change of theirs), and discovery run again."""

from __future__ import annotations

from sqlmodel import Session

from memory_app.domain.validation import ValidationError
from memory_app.links.discover import RebuildReport, rebuild_links
from memory_app.links.model import HAND_KINDS, LinkInfo, link_key
from memory_app.operations.common import ServiceState, new_group
from memory_app.store import links as store
from memory_app.store import repository as repo
from memory_app.store.tables import utc_now


class LinkOperations(ServiceState):
    def memory_links(self, item_id: int) -> list[LinkInfo]:
        """The memory's links from its side (NotFoundError for an unknown id)."""
        with self.db.reading() as session:
            repo.get_item(session, item_id)
            return store.links_of(session.connection(), item_id)

    def add_link(self, item_id: int, target_id: int, kind: str) -> LinkInfo:
        """Link a memory to another by hand; a discovered link of that kind between
        them becomes the person's (kept by every discovery). Undoable."""
        _check_kind(kind)
        if item_id == target_id:
            raise ValidationError({"target": f"memory {item_id} cannot be linked to itself"})
        key = link_key(item_id, target_id, kind)
        with self.db.writing() as session:
            for each in (item_id, target_id):
                _live(session, each)
            state = store.link_state(session.connection(), key)
            if state is not None and state["origin"] == "person":
                raise ValidationError(
                    {"target": f"memory {item_id} is already {kind} to memory {target_id}"}
                )
            new = {"origin": "person", "strength": 1.0, "created_at": utc_now()}
            store.set_link(
                session, key, new, actor="user", action="link", group_id=new_group("link")
            )
            return next(
                link
                for link in store.links_of(session.connection(), item_id)
                if link.kind == kind and link.other_id == target_id
            )

    def remove_link(self, item_id: int, target_id: int, kind: str) -> None:
        """Remove a link, whoever made it; a discovered one stays away (discovery will
        not bring it back). Undoable."""
        key = link_key(item_id, target_id, kind)
        with self.db.writing() as session:
            repo.get_item(session, item_id)
            state = store.link_state(session.connection(), key)
            if state is None or state["origin"] == "rejected":
                raise ValidationError(
                    {"target": f"memory {item_id} has no {kind} link to {target_id}"}
                )
            after = None if state["origin"] == "person" else {**state, "origin": "rejected"}
            store.set_link(
                session, key, after, actor="user", action="unlink", group_id=new_group("unlink")
            )

    def rebuild_links(self) -> RebuildReport:
        """Discover the links again (nightly maintenance does so too)."""
        with self.db.writing() as session:
            return rebuild_links(session.connection())


def _check_kind(kind: str) -> None:
    if kind not in HAND_KINDS:
        raise ValidationError(
            {"kind": f"a link made by hand is {' or '.join(HAND_KINDS)}, not {kind!r}"}
        )


def _live(session: Session, item_id: int) -> None:
    row = repo.get_item(session, item_id)
    if row.status == "deleted":
        raise ValidationError({"target": f"memory {item_id} is deleted: restore it first"})
