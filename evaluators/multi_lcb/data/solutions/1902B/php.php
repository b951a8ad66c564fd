<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$M = 1000000007;
$a = 0; $b = 1;
for ($i = 0; $i < $n; $i++) { $c = $a + $b; if ($c >= $M) $c -= $M; $a = $b; $b = $c; }
echo $a, "\n";
