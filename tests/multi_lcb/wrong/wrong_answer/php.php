<?php
$t = preg_split('/\s+/', trim(stream_get_contents(STDIN)));
echo intval($t[0]) - intval($t[1]), "\n";
