<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]); $q = intval($t[1]);
$pre = [0];
for ($i = 0; $i < $n; $i++) $pre[] = $pre[$i] + intval($t[2 + $i]);
$p = 2 + $n;
$out = [];
for ($i = 0; $i < $q; $i++) {
    $l = intval($t[$p]); $r = intval($t[$p + 1]); $p += 2;
    $out[] = $pre[$r] - $pre[$l - 1];
}
echo implode("\n", $out), "\n";
