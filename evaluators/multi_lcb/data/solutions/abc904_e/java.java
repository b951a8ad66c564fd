import java.util.*;

public class Main {
    public static void main(String[] args) throws Exception {
        FastReader fr = new FastReader();
        int n = fr.nextInt(), m = fr.nextInt();
        int[] head = new int[n + 1];
        Arrays.fill(head, -1);
        int[] next = new int[2 * m], to = new int[2 * m];
        long[] wt = new long[2 * m];
        int e = 0;
        for (int i = 0; i < m; i++) {
            int u = fr.nextInt(), v = fr.nextInt();
            long w = fr.nextLong();
            to[e] = v; wt[e] = w; next[e] = head[u]; head[u] = e++;
            to[e] = u; wt[e] = w; next[e] = head[v]; head[v] = e++;
        }
        long[] dist = new long[n + 1];
        Arrays.fill(dist, Long.MAX_VALUE);
        dist[1] = 0;
        PriorityQueue<long[]> pq = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
        pq.add(new long[] {0, 1});
        while (!pq.isEmpty()) {
            long[] top = pq.poll();
            long d = top[0];
            int u = (int) top[1];
            if (d > dist[u]) continue;
            for (int i = head[u]; i != -1; i = next[i]) {
                long nd = d + wt[i];
                if (nd < dist[to[i]]) {
                    dist[to[i]] = nd;
                    pq.add(new long[] {nd, to[i]});
                }
            }
        }
        System.out.println(dist[n] == Long.MAX_VALUE ? -1 : dist[n]);
    }
}

class FastReader {
    private final java.io.InputStream in = System.in;
    private final byte[] buf = new byte[1 << 16];
    private int len = 0, ptr = 0;

    private int read() throws java.io.IOException {
        if (ptr == len) {
            len = in.read(buf, 0, buf.length);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buf[ptr++];
    }

    long nextLong() throws java.io.IOException {
        int c = read();
        while (c != '-' && (c < '0' || c > '9')) c = read();
        boolean neg = false;
        if (c == '-') {
            neg = true;
            c = read();
        }
        long r = 0;
        while (c >= '0' && c <= '9') {
            r = r * 10 + (c - '0');
            c = read();
        }
        return neg ? -r : r;
    }

    int nextInt() throws java.io.IOException {
        return (int) nextLong();
    }

    String next() throws java.io.IOException {
        int c = read();
        while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = read();
        StringBuilder sb = new StringBuilder();
        while (c != -1 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            sb.append((char) c);
            c = read();
        }
        return sb.toString();
    }
}
