package dev.ducklake.janitor.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP peer on loopback that accepts every connection and never answers (a firewall black hole behind a load
 * balancer, a server hung before its greeting): a login to it waits until its timeout or a stop request ends it.
 * Close it after the test ({@code @AfterEach}); it closes the sockets it accepted.
 */
public final class SilentPeer implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    private SilentPeer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    accepted.add(server.accept());
                } catch (IOException e) {
                    return;
                }
            }
        }, "silent-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * @return a peer listening on an ephemeral loopback port
     * @throws IOException when no port can be bound
     */
    public static SilentPeer start() throws IOException {
        return new SilentPeer();
    }

    /** @return the port it listens on */
    public int port() {
        return server.getLocalPort();
    }

    /** @return the connections accepted so far (live view: a test polls it to see that a run is connecting) */
    public List<Socket> accepted() {
        return accepted;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : accepted) {
            s.close();
        }
    }
}
