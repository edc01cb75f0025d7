s|/m/[0-9]+/stap_[0-9a-f]+\.ko|MODULE|
