"""Walking an item's pages, and many items into one frame: pure over a fetch callable
(no sockets, no disk), so paging is tested with a scripted fetch."""
