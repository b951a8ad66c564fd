<?php
$data = stream_get_contents(STDIN);
$lines = array_values(array_filter(array_map('trim', explode("\n", $data)), function ($x) { return $x !== ''; }));
function str_arg($line) {
    $a = strpos($line, '"');
    $b = strrpos($line, '"');
    if ($a === false || $b === false || $b <= $a) return '';
    return substr($line, $a + 1, $b - $a - 1);
}
function int_list($line) {
    preg_match_all('/-?\d+/', $line, $m);
    return array_map('intval', $m[0]);
}
$nums = int_list($lines[0]);
$best = null; $cur = 0;
foreach ($nums as $x) {
    $cur = ($cur + $x > $x) ? $cur + $x : $x;
    if ($best === null || $cur > $best) $best = $cur;
}
echo $best, "\n";
