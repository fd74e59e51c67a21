"""Episodes: a conversation told as goal, milestones, problems and outcome (seeds 003,
004). `builder` reads a transcript offline; `store` keeps episodes beside their
conversations."""
