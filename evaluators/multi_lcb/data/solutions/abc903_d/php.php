<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$h = intval($t[0]); $w = intval($t[1]);
$g = '';
for ($i = 0; $i < $h; $i++) $g .= $t[2 + $i];
$N = $h * $w;
if ($g[0] === '#' || $g[$N - 1] === '#') { echo "-1\n"; exit(0); }
$dist = array_fill(0, $N, -1);
$dist[0] = 0;
$q = [0];
$qh = 0;
while ($qh < count($q)) {
    $cur = $q[$qh++];
    $r = intdiv($cur, $w); $c = $cur - $r * $w;
    $d = $dist[$cur] + 1;
    if ($r > 0) { $nb = $cur - $w; if ($dist[$nb] < 0 && $g[$nb] === '.') { $dist[$nb] = $d; $q[] = $nb; } }
    if ($r < $h - 1) { $nb = $cur + $w; if ($dist[$nb] < 0 && $g[$nb] === '.') { $dist[$nb] = $d; $q[] = $nb; } }
    if ($c > 0) { $nb = $cur - 1; if ($dist[$nb] < 0 && $g[$nb] === '.') { $dist[$nb] = $d; $q[] = $nb; } }
    if ($c < $w - 1) { $nb = $cur + 1; if ($dist[$nb] < 0 && $g[$nb] === '.') { $dist[$nb] = $d; $q[] = $nb; } }
}
echo $dist[$N - 1], "\n";
