require('sibyl_frame')
