<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$best = PHP_INT_MIN;
for ($i = 1; $i <= $n; $i++) { $v = intval($t[$i]); if ($v > $best) $best = $v; }
echo $best, "\n";
