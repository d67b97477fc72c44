"""dama from Python: every game dama registers (Turkish draughts and its
variants, Turkish Tafl, Mini draughts), compiled from the Rust engine.

    import dama
    g = dama.Game("draughts")
    g.play(g.legal_moves()[0])
    dama.Player("alphabeta:depth=4", "draughts").choose(g)
    dama.play_match("greedy", "random", game="tafl", games=10)
    dama.read_run("checkpoints/quick-20261121-1805")["metrics"]

Errors are ValueError with the engine's message.
"""
from ._dama import Game, Player, games, play_match, perft, read_run, __version__

__all__ = ["Game", "Player", "games", "play_match", "perft", "read_run", "__version__"]
