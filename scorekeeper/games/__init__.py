"""Playing a game: new game and seating, the round screen with buys and laid-down marks, card
entry and its review, standings, undo, abandon and delete (all under ``/games``)."""
