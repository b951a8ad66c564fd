<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]); $m = intval($t[1]);
$adj = array_fill(0, $n + 1, []);
$p = 2;
for ($i = 0; $i < $m; $i++) {
    $u = intval($t[$p]); $v = intval($t[$p + 1]); $w = intval($t[$p + 2]); $p += 3;
    $adj[$u][] = $v; $adj[$u][] = $w;
    $adj[$v][] = $u; $adj[$v][] = $w;
}
$INF = PHP_INT_MAX;
$dist = array_fill(0, $n + 1, $INF);
$dist[1] = 0;
$pq = new SplPriorityQueue();
$pq->setExtractFlags(SplPriorityQueue::EXTR_BOTH);
$pq->insert(1, 0);
while (!$pq->isEmpty()) {
    $top = $pq->extract();
    $u = $top['data']; $d = -$top['priority'];
    if ($d > $dist[$u]) continue;
    if ($u === $n) break;
    $a = $adj[$u];
    $al = count($a);
    for ($j = 0; $j < $al; $j += 2) {
        $v = $a[$j]; $nd = $d + $a[$j + 1];
        if ($nd < $dist[$v]) { $dist[$v] = $nd; $pq->insert($v, -$nd); }
    }
}
echo ($dist[$n] === $INF ? -1 : $dist[$n]), "\n";
