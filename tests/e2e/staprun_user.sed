s#/m/[0-9]+/stap_[0-9a-f]+\.ko#/m/N/MODULE.ko#g
s#/lib/modules/[^/"]+/systemtap#/lib/modules/RELEASE/systemtap#g
s#/stap_[0-9a-f]+\.ko#/MODULE.ko#g
