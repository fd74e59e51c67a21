"""Conversation chunks with progressive summaries (seed 003's short-term memory).

A long conversation is cut into runs of about ten messages; each gets an extractive
summary and key topics, and the chunks together a rolling summary. Extraction sends the
rolling summary of what came before with each request, and the part of a conversation
too long to send verbatim as chunk summaries; context assembly shows them as "This
conversation so far".
"""
