public class Main {
    public static void main(String[] args) throws Exception {
        FastReader fr = new FastReader();
        int h = fr.nextInt(), w = fr.nextInt();
        char[][] g = new char[h][];
        for (int i = 0; i < h; i++) g[i] = fr.next().toCharArray();
        if (g[0][0] != '.' || g[h - 1][w - 1] != '.') {
            System.out.println(-1);
            return;
        }
        int[] dist = new int[h * w];
        java.util.Arrays.fill(dist, -1);
        int[] queue = new int[h * w];
        int head = 0, tail = 0;
        dist[0] = 0;
        queue[tail++] = 0;
        int[] dr = {1, -1, 0, 0}, dc = {0, 0, 1, -1};
        while (head < tail) {
            int cur = queue[head++];
            int r = cur / w, c = cur % w;
            for (int k = 0; k < 4; k++) {
                int nr = r + dr[k], nc = c + dc[k];
                if (nr < 0 || nr >= h || nc < 0 || nc >= w || g[nr][nc] != '.') continue;
                int idx = nr * w + nc;
                if (dist[idx] >= 0) continue;
                dist[idx] = dist[cur] + 1;
                queue[tail++] = idx;
            }
        }
        System.out.println(dist[h * w - 1]);
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
