/// The browser UI's files compiled into Sibyl (`Resources/Web`, listed in Package.swift's
/// `webFiles`), by the name the page asks for under `/assets/`.
enum WebAssets {
    static let files: [String: [UInt8]] = [
        "index.html": PackageResources.index_html,
        "style.css": PackageResources.style_css,
        "icon.svg": PackageResources.icon_svg,
        "app.js": PackageResources.app_js,
        "api.js": PackageResources.api_js,
        "dom.js": PackageResources.dom_js,
        "markdown.js": PackageResources.markdown_js,
        "view-chat.js": PackageResources.view_chat_js,
        "view-documents.js": PackageResources.view_documents_js,
        "view-glasses.js": PackageResources.view_glasses_js,
        "view-images.js": PackageResources.view_images_js,
        "view-logs.js": PackageResources.view_logs_js,
        "view-memory.js": PackageResources.view_memory_js,
        "view-settings.js": PackageResources.view_settings_js,
        "view-settings-noa.js": PackageResources.view_settings_noa_js,
        "view-settings-pinecone.js": PackageResources.view_settings_pinecone_js,
        "view-settings-tools.js": PackageResources.view_settings_tools_js,
        "voice.js": PackageResources.voice_js,
        "i18n.js": PackageResources.i18n_js,
        "view-auth.js": PackageResources.view_auth_js,
        "i18n-en.json": PackageResources.i18n_en_json,
        "i18n-ko.json": PackageResources.i18n_ko_json,
        "i18n-id.json": PackageResources.i18n_id_json,
        "manifest.webmanifest": PackageResources.manifest_webmanifest,
        "sw.js": PackageResources.sw_js,
        "icon-192.png": PackageResources.icon_192_png,
        "icon-512.png": PackageResources.icon_512_png,
        "icon-maskable-512.png": PackageResources.icon_maskable_512_png,
    ]
}
