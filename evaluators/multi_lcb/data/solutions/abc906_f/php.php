<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]); $W = intval($t[1]);
$dp = array_fill(0, $W + 1, 0);
$p = 2;
for ($i = 0; $i < $n; $i++) {
    $w = intval($t[$p]); $v = intval($t[$p + 1]); $p += 2;
    for ($j = $W; $j >= $w; $j--) { $c = $dp[$j - $w] + $v; if ($c > $dp[$j]) $dp[$j] = $c; }
}
echo $dp[$W], "\n";
