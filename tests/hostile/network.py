"""Sends data out over the network: to a server on the machine's loopback (the test's), and to an
address beyond the machine (192.0.2.1, of TEST-NET-1, which is never routed: nothing real is
contacted, even where nothing stops it)."""
import socket

sent = []
for address in (("127.0.0.1", PORT), ("192.0.2.1", 9)):
    try:
        with socket.create_connection(address, timeout=3) as connection:
            connection.sendall(b"data from a submission\n")
            sent.append(address[0])
    except OSError as error:
        sent.append(f"{address[0]}: {error.strerror or error}")
raise RuntimeError(f"network: {sent}")
