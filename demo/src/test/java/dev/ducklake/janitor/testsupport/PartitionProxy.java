package dev.ducklake.janitor.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a PostgreSQL server that can simulate a network cut: {@link #cutClients()} closes the
 * client side of every open connection while keeping the server side open, so the client sees its connection
 * fail while the server backend lives on (as after a dropped NAT entry or a failed load balancer), still holding
 * its locks.
 */
public final class PartitionProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket[]> pairs = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean refusing;

    /**
     * Starts listening on a free local port.
     *
     * @param targetPort the server's port on localhost
     * @throws IOException when it cannot listen
     */
    public PartitionProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "partition-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (refusing) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                pairs.add(new Socket[] {client, server});
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // closed
            }
        }
    }

    /** Copies one direction; a clean end of stream closes the other side, a cut (an exception) leaves it open. */
    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
                to.close();
            } catch (IOException e) {
                // the cut side: leave the other side as it is
            }
        }, "partition-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Closes the client side of every connection so far; the server sides stay open (and silent). */
    public void cutClients() {
        for (Socket[] p : pairs) {
            try {
                p[0].close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    /**
     * A server that does not come back: every connection so far is closed and each new one is closed as soon as it is
     * accepted, while the port stays bound (after {@link #close} another process on the machine may take the port, and
     * a reconnect would then reach that process instead of failing).
     */
    public void refuseFromNowOn() {
        refusing = true;
        for (Socket[] p : pairs) {
            try {
                p[0].close();
                p[1].close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket[] p : pairs) {
            p[0].close();
            p[1].close();
        }
    }
}
